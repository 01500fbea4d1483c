package dev.jobqueue.testing.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.WorkerHarness;

/**
 * What the {@code main} of every torture worker JVM shares: its arguments, and its life
 * once its handlers are set. The arguments, in this order: the {@link TortureStore}
 * class, the database's location, worker id, threads, lease in milliseconds, what the
 * worker's harness adds ({@link #extra}), the directory of the handler records, and a
 * marker file.
 * <p>
 * {@link #run} prints {@code loopFailures=N} whenever the count of failed polling rounds
 * changes (a killed JVM cannot tell at exit). On SIGTERM the worker stops as an
 * application does (stops claiming, lets running jobs finish or hands them back) and the
 * JVM exits with 143; by itself it exits once the marker exists and no job is waiting,
 * pending or running: 0, or 3 if the worker loop ever failed.
 */
record WorkerMain(TortureStore store, String location, String workerId, int threads, Duration lease, List<String> extra,
		Path records, Path marker) {

	/** The arguments of a worker JVM, as {@link #of} reads them. */
	static Object[] arguments(TortureStore store, String location, String workerId, int threads, long leaseMillis,
			Path records, Path marker, Object... extra) {
		List<Object> arguments = new ArrayList<>(
				List.of(store.getClass().getName(), location, workerId, threads, leaseMillis));
		arguments.addAll(Arrays.asList(extra));
		arguments.add(records);
		arguments.add(marker);
		return arguments.toArray();
	}

	static WorkerMain of(String[] args) throws ReflectiveOperationException {
		TortureStore store = (TortureStore) Class.forName(args[0]).getConstructor().newInstance();
		return new WorkerMain(store, args[1], args[2], Integer.parseInt(args[3]),
				Duration.ofMillis(Long.parseLong(args[4])), List.of(args).subList(5, args.length - 2),
				Path.of(args[args.length - 2]), Path.of(args[args.length - 1]));
	}

	/**
	 * The worker {@code harness} builds, with a thread of its own for each of
	 * {@link #threads}.
	 */
	JobWorker worker(WorkerHarness harness) {
		return harness.worker(this.workerId, Executors.newFixedThreadPool(this.threads));
	}

	/**
	 * Hooks {@code worker} to the store's wake-ups, starts it and runs it until the jobs
	 * are done or a SIGTERM stops it; closes {@code db} and ends the JVM.
	 */
	void run(JobWorker worker, StoreFixture db) throws InterruptedException {
		this.store.connect(db, worker);
		AtomicBoolean finishing = new AtomicBoolean();
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			if (!finishing.get()) {
				int handedBack = worker.stop();
				System.out
					.println("stopped on SIGTERM, handedBack=" + handedBack + " loopFailures=" + worker.loopFailures());
			}
		}, "graceful-stop"));
		worker.start();
		System.out.println("worker " + this.workerId + " pid " + ProcessHandle.current().pid() + " started");
		long reported = 0;
		while (true) {
			Thread.sleep(200);
			long failures = worker.loopFailures();
			if (failures != reported) {
				reported = failures;
				System.out.println("loopFailures=" + failures);
			}
			if (Files.exists(this.marker)) {
				try {
					if (db.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')") == 0) {
						break;
					}
				}
				catch (RuntimeException ex) {
					// The server is away (restarted): ask again, as the worker does.
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
