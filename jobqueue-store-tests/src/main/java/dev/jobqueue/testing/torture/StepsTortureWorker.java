package dev.jobqueue.testing.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.jobqueue.JobContext;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.HandlerRuns;
import dev.jobqueue.testing.WorkerHarness;

/**
 * A worker JVM of the steps torture ({@link StepsTortureHarness}), as an application that
 * shares its database with the queue. Arguments: those of every torture worker
 * ({@link WorkerMain}). One job type, {@code steps}, of five durable steps:
 * {@code reserve}, {@code charge} (external work), {@code ledger} (a transactional step
 * that inserts a row into the application's table {@code step_ledger}), {@code notify}
 * and {@code receipt} (external again). Every step's body returns a value of its own run
 * (a random UUID) and records it with the job's id under the step's name
 * ({@link HandlerRuns}); the ledger's row carries its value too. The job's result joins
 * the values its steps gave ({@link #result}), so a step that ran again instead of
 * replaying its record shows as a value the record does not hold.
 * <p>
 * While a run is inside its transactional step (from the start of its body until its
 * transaction has committed or rolled back) a marker file {@code <worker id>-<job id>}
 * lies in {@link #IN_LEDGER} under the records: the chaos loop aims at a worker with a
 * marker, and a marker left behind is a kill that landed inside the step. Each step
 * sleeps a few milliseconds, so kills fall inside steps and between a step's work and its
 * record.
 */
public final class StepsTortureWorker {

	static final String[] STEPS = { "reserve", "charge", "ledger", "notify", "receipt" };

	static final String[] EXTERNAL_STEPS = { "reserve", "charge", "notify", "receipt" };

	/** The folder, under the records, of the markers of runs inside the ledger step. */
	static final String IN_LEDGER = "in-ledger";

	private StepsTortureWorker() {
	}

	/**
	 * The result of a job whose steps gave these values, in the order of {@link #STEPS}.
	 */
	static String result(List<String> values) {
		StringBuilder result = new StringBuilder();
		for (int i = 0; i < STEPS.length; i++) {
			result.append((i > 0) ? " " : "").append(STEPS[i]).append('=').append(values.get(i));
		}
		return result.toString();
	}

	public static void main(String[] args) throws Exception {
		WorkerMain main = WorkerMain.of(args);
		TortureStore.SharedDatabase shared = main.store().openShared(main.location(), main.threads() + 3);
		Map<String, HandlerRuns> runs = new HashMap<>();
		for (String step : STEPS) {
			runs.put(step, HandlerRuns.in(main.records(), "step-" + step));
		}
		Path inLedger = Files.createDirectories(main.records().resolve(IN_LEDGER));
		WorkerHarness harness = WorkerHarness.onSystemClock(shared.db())
			.concurrency(main.threads())
			.lease(main.lease())
			.pollInterval(Duration.ofMillis(50));
		harness.handle(HandlerDefinition.of("steps", (payload, context) -> {
			long id = context.jobId();
			List<String> values = new ArrayList<>();
			for (String step : STEPS) {
				if (step.equals("ledger")) {
					Path marker = inLedger.resolve(main.workerId() + "-" + id);
					try {
						values.add(context.transactionalStep(step, String.class, () -> {
							touch(marker);
							String value = runs.get(step).record(id, UUID.randomUUID().toString());
							shared.writes().update("INSERT INTO step_ledger (job_id, step) VALUES (?, ?)", id, value);
							pause(context);
							return value;
						}));
					}
					finally {
						Files.deleteIfExists(marker);
					}
				}
				else {
					values.add(context.step(step, String.class, () -> {
						String value = runs.get(step).record(id, UUID.randomUUID().toString());
						pause(context);
						return value;
					}));
				}
			}
			return result(values);
		}));
		JobWorker worker = main.worker(harness);
		worker.setStepTransactions(shared.stepTransactions());
		main.run(worker, shared.db());
	}

	private static void touch(Path marker) {
		try {
			Files.writeString(marker, "");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
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
