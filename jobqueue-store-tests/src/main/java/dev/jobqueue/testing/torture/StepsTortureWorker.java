package dev.jobqueue.testing.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.jobqueue.JobContext;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.HandlerRuns;
import dev.jobqueue.testing.WorkerHarness;

/**
 * A worker JVM of the steps torture ({@link StepsTortureHarness}), as an application that
 * shares its database with the queue. Arguments: the {@link TortureStore} class, the
 * database's location, worker id, threads, lease in milliseconds, the directory of the
 * records and a marker file. One job type, {@code steps}, of five durable steps:
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
		TortureStore store = (TortureStore) Class.forName(args[0]).getConstructor().newInstance();
		String location = args[1];
		String workerId = args[2];
		int threads = Integer.parseInt(args[3]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
		Path records = Path.of(args[5]);
		Path marker = Path.of(args[6]);
		TortureStore.SharedDatabase shared = store.openShared(location, threads + 3);
		HandlerRuns reserve = HandlerRuns.in(records, "step-reserve");
		HandlerRuns charge = HandlerRuns.in(records, "step-charge");
		HandlerRuns ledger = HandlerRuns.in(records, "step-ledger");
		HandlerRuns notify = HandlerRuns.in(records, "step-notify");
		HandlerRuns receipt = HandlerRuns.in(records, "step-receipt");
		WorkerHarness harness = WorkerHarness.onSystemClock(shared.db())
			.concurrency(threads)
			.lease(lease)
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
		JobWorker worker = harness.worker(workerId, Executors.newFixedThreadPool(threads));
		worker.setStepTransactions(shared.stepTransactions());
		store.connect(shared.db(), worker);
		AtomicBoolean finishing = new AtomicBoolean();
		worker.start();
		System.out.println("worker " + workerId + " pid " + ProcessHandle.current().pid() + " started");
		long reported = 0;
		while (true) {
			Thread.sleep(200);
			long failures = worker.loopFailures();
			if (failures != reported) {
				reported = failures;
				System.out.println("loopFailures=" + failures);
			}
			if (Files.exists(marker)) {
				try {
					if (shared.db()
						.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')") == 0) {
						break;
					}
				}
				catch (RuntimeException ex) {
					System.out.println("exit check failed, trying again: " + ex.getMessage());
				}
			}
		}
		finishing.set(true);
		worker.stop();
		System.out.println("final loopFailures=" + worker.loopFailures());
		shared.close();
		System.exit(worker.loopFailures() == 0 ? 0 : 3);
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
