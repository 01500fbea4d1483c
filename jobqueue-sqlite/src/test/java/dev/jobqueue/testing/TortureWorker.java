package dev.jobqueue.testing;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;

import dev.jobqueue.JobContext;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.worker.DefaultErrorClassifier;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.core.worker.WorkerSettings;

/**
 * A worker JVM of the torture test. Arguments: database file, worker threads, lease in
 * milliseconds, and a marker file. Handles the torture job types:
 * <ul>
 * <li>{@code fast}: returns at once;</li>
 * <li>{@code slow}: sleeps the payload's milliseconds;</li>
 * <li>{@code flaky}: fails its first {@code payload} attempts, then succeeds;</li>
 * <li>{@code heartbeat}: beats {@code payload} times, 300 ms apart, longer in all than a
 * short lease;</li>
 * <li>{@code doomed}: always fails;</li>
 * <li>{@code chain}: a chain step; with a payload above 0 it continues with a
 * {@code chain} step of one less ({@code JobContext.continueWith}), so a chain enqueued
 * with {@code k} has {@code k + 1} steps.</li>
 * </ul>
 * Each handler body that runs to its end appends the job id to
 * {@code completed-<pid>.txt} next to the database. Prints {@code loopFailures=N}
 * whenever the count of failed polling rounds changes (a killed JVM cannot tell at exit),
 * and exits once the marker exists and no job is pending or running: 0, or 3 if the
 * worker loop ever failed.
 */
public final class TortureWorker {

	private TortureWorker() {
	}

	public static void main(String[] args) throws Exception {
		Path file = Path.of(args[0]);
		int threads = Integer.parseInt(args[1]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
		Path marker = Path.of(args[3]);
		TestDatabase db = TestDatabase.create(file, "");
		// Unbuffered appends: a line written before a SIGKILL is in the kernel and
		// survives it.
		FileOutputStream completions = new FileOutputStream(
				file.resolveSibling("completed-" + ProcessHandle.current().pid() + ".txt").toFile(), true);
		HandlerRegistry handlers = new HandlerRegistry();
		handlers.register(HandlerDefinition.of("fast", (payload, context) -> completed(completions, context)));
		handlers.register(HandlerDefinition.of("slow", (payload, context) -> {
			Thread.sleep(Long.parseLong(payload));
			return completed(completions, context);
		}));
		handlers.register(HandlerDefinition.of("flaky", (payload, context) -> {
			if (context.attempt() <= Integer.parseInt(payload)) {
				throw new IllegalStateException("flaky job fails attempt " + context.attempt());
			}
			return completed(completions, context);
		}));
		handlers.register(HandlerDefinition.of("heartbeat", (payload, context) -> {
			for (int beat = Integer.parseInt(payload); beat > 0; beat--) {
				Thread.sleep(300);
				if (!context.heartbeat()) {
					throw new IllegalStateException("lost the lease while beating");
				}
			}
			return completed(completions, context);
		}));
		handlers.register(HandlerDefinition.of("chain", (payload, context) -> {
			int left = Integer.parseInt(payload);
			if (left > 0) {
				context.continueWith("chain", left - 1);
			}
			return completed(completions, context);
		}));
		handlers.register(HandlerDefinition.of("doomed", (payload, context) -> {
			throw new IllegalStateException("doomed job fails for good");
		}));
		WorkerSettings settings = new WorkerSettings(WorkerIds.newId(), threads, Duration.ofMillis(50), lease,
				Duration.ofSeconds(5), 10);
		JobWorker worker = new JobWorker(db.store(), handlers, WorkerHarness.CODEC, new DefaultErrorClassifier(),
				new RetryPolicy(Duration.ofMillis(20), Duration.ofMillis(200), Math::random), Clock.systemUTC(),
				settings, Executors.newFixedThreadPool(threads), WorkerListener.NONE, null);
		worker.start();
		System.out.println("worker " + worker.workerId() + " pid " + ProcessHandle.current().pid() + " started");
		long reported = 0;
		while (true) {
			Thread.sleep(200);
			long failures = worker.loopFailures();
			if (failures != reported) {
				reported = failures;
				System.out.println("loopFailures=" + failures);
			}
			if (Files.exists(marker)
					&& db.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')") == 0) {
				break;
			}
		}
		worker.stop();
		System.out
			.println("final loopFailures=" + worker.loopFailures() + " busyRetries=" + db.database().busyRetries());
		db.close();
		System.exit(worker.loopFailures() == 0 ? 0 : 3);
	}

	/**
	 * Records that a handler body ran to its end, as {@code <job id>}, one line per run.
	 */
	private static Object completed(FileOutputStream completions, JobContext context) throws IOException {
		byte[] line = (context.jobId() + "\n").getBytes(StandardCharsets.US_ASCII);
		synchronized (completions) {
			completions.write(line);
		}
		return null;
	}

	/** Starts a torture worker JVM with the test class path. */
	public static Process launch(Path file, int threads, long leaseMillis, Path marker, Path log) throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp",
				System.getProperty("java.class.path"), TortureWorker.class.getName(), file.toString(),
				String.valueOf(threads), String.valueOf(leaseMillis), marker.toString());
		builder.redirectErrorStream(true);
		builder.redirectOutput(log.toFile());
		return builder.start();
	}

}
