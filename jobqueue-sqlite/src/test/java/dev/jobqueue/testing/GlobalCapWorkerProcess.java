package dev.jobqueue.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;

import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.JobInvoker;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;

/**
 * One worker process for the global concurrency test: 8 worker threads on the shared file
 * and two handlers capped at 2 across processes, each counting itself in its own
 * {@link SharedCounter}:
 * <ul>
 * <li>{@code scarce}: no cap per process, so one process alone could run 8 at once;</li>
 * <li>{@code scarce-spread}: at most 1 per process, so three processes without a global
 * cap would run 3.</li>
 * </ul>
 * Exits once the expected number of jobs succeeded.
 *
 * <p>
 * Arguments: database file, counter file prefix, worker id, expected job count.
 */
public final class GlobalCapWorkerProcess {

	public static final String TYPE = "scarce";

	public static final String SPREAD_TYPE = "scarce-spread";

	public static final int CAP = 2;

	private GlobalCapWorkerProcess() {
	}

	public static void main(String[] args) throws Exception {
		Path database = Path.of(args[0]);
		String counters = args[1];
		String workerId = args[2];
		long expected = Long.parseLong(args[3]);
		try (TestDatabase db = TestDatabase.create(database, "")) {
			JobWorker worker = WorkerHarness.onSystemClock(db)
				.handle(new HandlerDefinition(TYPE, countingHandler(Path.of(counters + TYPE)), 0, null, 0, true,
						"GlobalCapWorkerProcess", CAP))
				.handle(new HandlerDefinition(SPREAD_TYPE, countingHandler(Path.of(counters + SPREAD_TYPE)), 0, null, 1,
						true, "GlobalCapWorkerProcess", CAP))
				.concurrency(8)
				.pollInterval(Duration.ofMillis(20))
				.lease(Duration.ofSeconds(10))
				.shutdownTimeout(Duration.ofSeconds(5))
				.maxSnoozes(3)
				.retry(new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), () -> 0.5))
				.workerDefaultLimits()
				.worker(workerId, Executors.newFixedThreadPool(8));
			worker.start();
			long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
			while (db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'") < expected
					&& System.nanoTime() < deadline) {
				Thread.sleep(50);
			}
			worker.stop();
		}
		System.exit(0);
	}

	private static JobInvoker countingHandler(Path counter) {
		return (payload, context) -> {
			SharedCounter.enter(counter);
			try {
				Thread.sleep(25);
			}
			finally {
				SharedCounter.exit(counter);
			}
			return null;
		};
	}

}
