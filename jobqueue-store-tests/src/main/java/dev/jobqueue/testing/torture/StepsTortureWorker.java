package dev.jobqueue.testing.torture;

import java.time.Duration;

import dev.jobqueue.JobContext;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.HandlerRuns;
import dev.jobqueue.testing.WorkerHarness;

/**
 * A worker JVM of the steps torture ({@link StepsTortureHarness}), as an application that
 * shares its database with the queue. Arguments: those of every torture worker
 * ({@link WorkerMain}). One job type, {@code steps}, of five durable steps:
 * {@code reserve}, {@code charge} (external work: each run of its body is recorded under
 * its name, {@link HandlerRuns}), {@code ledger} (a transactional step that inserts a row
 * into the application's table {@code step_ledger}), {@code notify} and {@code receipt}
 * (external again). Each step sleeps a few milliseconds, so kills fall inside steps and
 * between a step's work and its record. The result joins the steps' results, so a
 * replayed result that differs from the first shows.
 */
public final class StepsTortureWorker {

	static final String[] EXTERNAL_STEPS = { "reserve", "charge", "notify", "receipt" };

	private StepsTortureWorker() {
	}

	/** What a job with payload {@code n} returns when every step gave its own result. */
	static String expectedResult(long n) {
		return "reserved " + (n * 2) + ", charged " + (n * 3) + ", booked, receipt " + n;
	}

	public static void main(String[] args) throws Exception {
		WorkerMain main = WorkerMain.of(args);
		TortureStore.SharedDatabase shared = main.store().openShared(main.location(), main.threads() + 3);
		HandlerRuns reserve = HandlerRuns.in(main.records(), "step-reserve");
		HandlerRuns charge = HandlerRuns.in(main.records(), "step-charge");
		HandlerRuns ledger = HandlerRuns.in(main.records(), "step-ledger");
		HandlerRuns notify = HandlerRuns.in(main.records(), "step-notify");
		HandlerRuns receipt = HandlerRuns.in(main.records(), "step-receipt");
		WorkerHarness harness = WorkerHarness.onSystemClock(shared.db())
			.concurrency(main.threads())
			.lease(main.lease())
			.pollInterval(Duration.ofMillis(50));
		harness.handle(HandlerDefinition.of("steps", (payload, context) -> {
			long n = Long.parseLong(payload);
			long id = context.jobId();
			Long reserved = context.step("reserve", Long.class, () -> {
				reserve.record(id);
				pause(context);
				return n * 2;
			});
			Long charged = context.step("charge", Long.class, () -> {
				charge.record(id);
				pause(context);
				return n * 3;
			});
			context.transactionalStep("ledger", () -> {
				ledger.record(id);
				shared.writes().update("INSERT INTO step_ledger (job_id, step) VALUES (?, ?)", id, "ledger");
				pause(context);
			});
			context.step("notify", () -> {
				notify.record(id);
				pause(context);
			});
			String sent = context.step("receipt", String.class, () -> {
				receipt.record(id);
				pause(context);
				return "receipt " + n;
			});
			return "reserved " + reserved + ", charged " + charged + ", booked, " + sent;
		}));
		JobWorker worker = main.worker(harness);
		worker.setStepTransactions(shared.stepTransactions());
		main.run(worker, shared.db());
	}

	/** A few milliseconds of work, varied by job, so kills land inside steps. */
	private static void pause(JobContext context) {
		try {
			Thread.sleep(1 + (context.jobId() % 5));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted", ex);
		}
	}

}
