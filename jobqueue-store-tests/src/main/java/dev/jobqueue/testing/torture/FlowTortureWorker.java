package dev.jobqueue.testing.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.WorkerHarness;

/**
 * A worker JVM of the flow torture test ({@link FlowTortureHarness}), on any store.
 * Arguments: the {@link TortureStore} class, the database's location, worker id, threads,
 * lease in milliseconds, claim-ahead, the directory of the handler records and a marker
 * file. Every type's body records its start and end ({@link FlowRecords}) and sleeps its
 * payload's milliseconds between them; the types differ only in their limits
 * ({@link #LIMITS}).
 * <p>
 * Prints {@code loopFailures=N} whenever the count of failed polling rounds changes. On
 * SIGTERM it stops as an application does and exits with 143; by itself it exits once the
 * marker exists and no job is waiting, pending or running: 0, or 3 if the worker loop
 * ever failed.
 */
public final class FlowTortureWorker {

	/** One key's jobs one after another, in enqueue order. */
	public static final String ORDERED = "ordered";

	/** At most two running jobs per key. */
	public static final String PAIRS = "pairs";

	/**
	 * A rate limit on the type and a tighter one per key, over windows of different
	 * lengths.
	 */
	public static final String RATED = "rated";

	/** Keyed jobs without limits: only fairness across keys. */
	public static final String FAIR = "fair";

	/** Keyed jobs with at most two running per key, for fairness under a key limit. */
	public static final String FAIR_PAIRS = "fairPairs";

	/** The flow control of each type. */
	public static final Map<String, FlowControl> LIMITS = Map.of(ORDERED, new FlowControl(null, null, 0, true, true),
			PAIRS, new FlowControl(null, null, 2, false, true), RATED,
			new FlowControl(RateLimit.parse("30/3s"), RateLimit.parse("6/2s"), 0, false, true), FAIR, FlowControl.NONE,
			FAIR_PAIRS, new FlowControl(null, null, 2, false, true));

	private FlowTortureWorker() {
	}

	public static void main(String[] args) throws Exception {
		TortureStore store = (TortureStore) Class.forName(args[0]).getConstructor().newInstance();
		String location = args[1];
		String workerId = args[2];
		int threads = Integer.parseInt(args[3]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
		int claimAhead = Integer.parseInt(args[5]);
		Path records = Path.of(args[6]);
		Path marker = Path.of(args[7]);
		StoreFixture db = store.open(location, threads + 2);
		FlowRecords runs = FlowRecords.in(records);
		WorkerHarness harness = WorkerHarness.onSystemClock(db)
			.concurrency(threads)
			.lease(lease)
			.shutdownTimeout(Duration.ofSeconds(2))
			.pollInterval(Duration.ofMillis(50))
			.claimAhead(claimAhead);
		LIMITS.forEach((type, limits) -> harness.handle(new HandlerDefinition(type, (payload, context) -> {
			runs.started(context.jobId(), context.attempt());
			long sleep = Long.parseLong(payload);
			if (sleep > 0) {
				Thread.sleep(sleep);
			}
			runs.ended(context.jobId(), context.attempt());
			return null;
		}, 0, null, 0, true, type, 0, limits)));
		JobWorker worker = harness.worker(workerId, Executors.newFixedThreadPool(threads));
		store.connect(db, worker);
		AtomicBoolean finishing = new AtomicBoolean();
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			if (!finishing.get()) {
				int handedBack = worker.stop();
				System.out
					.println("stopped on SIGTERM, handedBack=" + handedBack + " loopFailures=" + worker.loopFailures());
			}
		}, "graceful-stop"));
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
					if (db.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')") == 0) {
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
		db.close();
		System.exit(worker.loopFailures() == 0 ? 0 : 3);
	}

}
