package dev.jobqueue.testing.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.HandlerRuns;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.WorkerHarness;

/**
 * A worker JVM of the torture harness, on any store. Arguments: the {@link TortureStore}
 * class, the database's location, worker id, threads, lease and shutdown timeout in
 * milliseconds, the directory of the handler records, and a marker file. Job types:
 * <ul>
 * <li>{@code fast}: returns at once; {@code join} (a fan-out's join) too;</li>
 * <li>{@code slow}: sleeps the payload's milliseconds; {@code long} too, longer than the
 * shutdown timeout, so a SIGTERM cuts it off and hands it back;</li>
 * <li>{@code flaky}: fails its first {@code payload} attempts, then succeeds;</li>
 * <li>{@code heartbeat}: beats {@code payload} times, 300 ms apart, longer in all than a
 * short lease;</li>
 * <li>{@code doomed}: always fails;</li>
 * <li>{@code chain}: a chain step; with a payload above 0 it continues with a
 * {@code chain} step of one less ({@code JobContext.continueWith}), so a chain enqueued
 * with {@code k} has {@code k + 1} steps.</li>
 * </ul>
 * Each body records its start as {@code started} and, when it runs to its end,
 * {@code completed} ({@link HandlerRuns}). Prints {@code loopFailures=N} whenever the
 * count of failed polling rounds changes (a killed JVM cannot tell at exit). On SIGTERM
 * it stops as an application does (stops claiming, lets running jobs finish or hands them
 * back) and exits with 143; by itself it exits once the marker exists and no job is
 * waiting, pending or running: 0, or 3 if the worker loop ever failed.
 */
public final class TortureWorker {

	private TortureWorker() {
	}

	public static void main(String[] args) throws Exception {
		TortureStore store = (TortureStore) Class.forName(args[0]).getConstructor().newInstance();
		String location = args[1];
		String workerId = args[2];
		int threads = Integer.parseInt(args[3]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
		Duration shutdownTimeout = Duration.ofMillis(Long.parseLong(args[5]));
		Path records = Path.of(args[6]);
		Path marker = Path.of(args[7]);
		StoreFixture db = store.open(location, threads + 2);
		HandlerRuns started = HandlerRuns.in(records, "started");
		HandlerRuns completed = HandlerRuns.in(records, "completed");
		WorkerHarness harness = WorkerHarness.onSystemClock(db)
			.concurrency(threads)
			.lease(lease)
			.shutdownTimeout(shutdownTimeout)
			.pollInterval(Duration.ofMillis(50))
			.maxSnoozes(10);
		for (String type : new String[] { "fast", "join" }) {
			harness.handle(HandlerDefinition.of(type, (payload, context) -> {
				started.record(context.jobId());
				return completed.record(context.jobId());
			}));
		}
		for (String type : new String[] { "slow", "long" }) {
			harness.handle(HandlerDefinition.of(type, (payload, context) -> {
				started.record(context.jobId());
				Thread.sleep(Long.parseLong(payload));
				return completed.record(context.jobId());
			}));
		}
		harness.handle(HandlerDefinition.of("flaky", (payload, context) -> {
			started.record(context.jobId());
			if (context.attempt() <= Integer.parseInt(payload)) {
				throw new IllegalStateException("flaky job fails attempt " + context.attempt());
			}
			return completed.record(context.jobId());
		}));
		harness.handle(HandlerDefinition.of("heartbeat", (payload, context) -> {
			started.record(context.jobId());
			for (int beat = Integer.parseInt(payload); beat > 0; beat--) {
				Thread.sleep(300);
				if (!context.heartbeat()) {
					throw new IllegalStateException("lost the lease while beating");
				}
			}
			return completed.record(context.jobId());
		}));
		harness.handle(HandlerDefinition.of("chain", (payload, context) -> {
			started.record(context.jobId());
			// Long enough for kills to fall while steps run, between a handler's end and
			// its outcome's write.
			Thread.sleep(20);
			int left = Integer.parseInt(payload);
			if (left > 0) {
				context.continueWith("chain", left - 1);
			}
			return completed.record(context.jobId());
		}));
		harness.handle(HandlerDefinition.of("doomed", (payload, context) -> {
			started.record(context.jobId());
			throw new IllegalStateException("doomed job fails for good");
		}));
		JobWorker worker = harness.worker(workerId, Executors.newFixedThreadPool(threads));
		store.connect(db, worker);
		AtomicBoolean finishing = new AtomicBoolean();
		Thread stopping = new Thread(() -> {
			if (!finishing.get()) {
				int handedBack = worker.stop();
				System.out
					.println("stopped on SIGTERM, handedBack=" + handedBack + " loopFailures=" + worker.loopFailures());
			}
		}, "graceful-stop");
		Runtime.getRuntime().addShutdownHook(stopping);
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
