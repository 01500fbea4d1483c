package dev.jobqueue.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;

import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.WorkerSettings;

/**
 * A worker JVM for tests about processes. Arguments: database file, concurrency, lease in
 * milliseconds, and a mode: {@code drain} (exit 0 once no unfinished job is left, 3 if
 * the worker loop ever failed; each {@code noop} body records its run as {@code ran} in
 * {@link HandlerRuns} next to the file) or {@code block} (handlers write a marker file
 * and then sleep, waiting to be killed); optionally the claim-ahead bound (the default
 * for the concurrency without it).
 */
public final class WorkerProcess {

	private WorkerProcess() {
	}

	public static void main(String[] args) throws Exception {
		Path file = Path.of(args[0]);
		int concurrency = Integer.parseInt(args[1]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
		String mode = args[3];
		TestDatabase db = TestDatabase.create(file, "");
		WorkerHarness harness = WorkerHarness.onSystemClock(db)
			.concurrency(concurrency)
			.pollInterval(Duration.ofMillis(100))
			.lease(lease)
			.shutdownTimeout(Duration.ofSeconds(5))
			.maxSnoozes(10)
			.workerDefaultLimits();
		if (mode.equals("block")) {
			for (String type : new String[] { "slow", "slow-once" }) {
				harness.handle(new HandlerDefinition(type, (payload, context) -> {
					Files.writeString(file.resolveSibling("started-" + context.jobId()), "");
					Thread.sleep(600_000);
					return null;
				}, 0, null, 0, !type.endsWith("once"), type));
			}
		}
		else {
			HandlerRuns ran = HandlerRuns.in(file.toAbsolutePath().getParent(), "ran");
			harness.handle(HandlerDefinition.of("noop", (payload, context) -> ran.record(context.jobId())));
		}
		if (args.length > 4) {
			harness.claimAhead(Integer.parseInt(args[4]));
		}
		JobWorker worker = harness.worker(WorkerIds.newId(), Executors.newFixedThreadPool(concurrency));
		worker.start();
		System.out.println("worker " + worker.workerId() + " started");
		if (mode.equals("block")) {
			Thread.sleep(600_000);
		}
		while (db.count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')") > 0) {
			Thread.sleep(50);
		}
		worker.stop();
		db.close();
		System.exit(worker.loopFailures() == 0 ? 0 : 3);
	}

	/** Starts a worker JVM with the test class path. */
	public static Process launch(Path file, int concurrency, long leaseMillis, String mode, Path log) throws Exception {
		return launch(file, concurrency, leaseMillis, mode, log, WorkerSettings.defaultClaimAhead(concurrency));
	}

	/** Starts a worker JVM with the test class path and a claim-ahead bound. */
	public static Process launch(Path file, int concurrency, long leaseMillis, String mode, Path log, int claimAhead)
			throws Exception {
		return ChildJvm.start(WorkerProcess.class, log, file, concurrency, leaseMillis, mode, claimAhead).process();
	}

}
