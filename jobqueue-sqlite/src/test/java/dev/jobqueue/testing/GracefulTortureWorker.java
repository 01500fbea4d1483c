package dev.jobqueue.testing;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.jobqueue.JobContext;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.JobInvoker;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;

/**
 * A worker JVM of the graceful-shutdown torture test, stopped by SIGTERM: a shutdown hook
 * stops the worker as an application would, with a short shutdown timeout. Arguments:
 * database file, worker threads, lease and shutdown timeout in milliseconds, and a marker
 * file. Two job types that sleep their payload's milliseconds: {@code work} (repeatable)
 * and {@code charge} ({@code repeatable = false}). Each handler body appends
 * {@code start <id>} as it begins and {@code done <id>} as it ends to
 * {@code bodies-<pid>.txt} next to the database. Exits once the marker exists and no job
 * is pending or running.
 */
public final class GracefulTortureWorker {

	private GracefulTortureWorker() {
	}

	public static void main(String[] args) throws Exception {
		Path file = Path.of(args[0]);
		int threads = Integer.parseInt(args[1]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
		Duration shutdownTimeout = Duration.ofMillis(Long.parseLong(args[3]));
		Path marker = Path.of(args[4]);
		TestDatabase db = TestDatabase.create(file, "");
		// Unbuffered appends: what a body wrote survives however the JVM ends.
		FileOutputStream bodies = new FileOutputStream(
				file.resolveSibling("bodies-" + ProcessHandle.current().pid() + ".txt").toFile(), true);
		JobInvoker sleeper = (payload, context) -> {
			record(bodies, "start", context);
			Thread.sleep(Long.parseLong(payload));
			record(bodies, "done", context);
			return null;
		};
		JobWorker worker = WorkerHarness.onSystemClock(db)
			.handle(new HandlerDefinition("work", sleeper, 0, null, 0, true, "work"))
			.handle(new HandlerDefinition("charge", sleeper, 0, null, 0, false, "charge"))
			.concurrency(threads)
			.pollInterval(Duration.ofMillis(50))
			.lease(lease)
			.shutdownTimeout(shutdownTimeout)
			.maxSnoozes(10)
			.retry(new RetryPolicy(Duration.ofMillis(20), Duration.ofMillis(200), Math::random))
			.workerDefaultLimits()
			.worker(WorkerIds.newId(), Executors.newFixedThreadPool(threads));
		AtomicBoolean stopped = new AtomicBoolean();
		Runnable stop = () -> {
			if (stopped.compareAndSet(false, true)) {
				int cutOff = worker.stop();
				System.out.println("stopped: cutOff=" + cutOff + " loopFailures=" + worker.loopFailures());
				db.close();
			}
		};
		Runtime.getRuntime().addShutdownHook(new Thread(stop, "graceful-torture-shutdown"));
		worker.start();
		System.out.println("worker " + worker.workerId() + " pid " + ProcessHandle.current().pid() + " started");
		while (!(Files.exists(marker)
				&& db.count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')") == 0)) {
			Thread.sleep(200);
		}
		System.exit(0);
	}

	private static void record(FileOutputStream bodies, String what, JobContext context) throws IOException {
		byte[] line = (what + " " + context.jobId() + "\n").getBytes(StandardCharsets.US_ASCII);
		synchronized (bodies) {
			bodies.write(line);
		}
	}

	/** Starts a worker JVM with the test class path. */
	public static Process launch(Path file, int threads, long leaseMillis, long shutdownMillis, Path marker, Path log)
			throws IOException {
		return ChildJvm.start(GracefulTortureWorker.class, log, file, threads, leaseMillis, shutdownMillis, marker)
			.process();
	}

}
