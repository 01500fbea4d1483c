package dev.jobqueue.testing.torture;

import java.time.Duration;

import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.testing.HandlerRuns;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.WorkerHarness;

/**
 * A worker JVM of the torture harness, on any store. Arguments: those of every torture
 * worker ({@link WorkerMain}), with the shutdown timeout in milliseconds. Job types:
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
 * {@code completed} ({@link HandlerRuns}). It stops and exits as every torture worker
 * does ({@link WorkerMain#run}).
 */
public final class TortureWorker {

	private TortureWorker() {
	}

	public static void main(String[] args) throws Exception {
		WorkerMain main = WorkerMain.of(args);
		Duration shutdownTimeout = Duration.ofMillis(Long.parseLong(main.extra().get(0)));
		StoreFixture db = main.store().open(main.location(), main.threads() + 2);
		HandlerRuns started = HandlerRuns.in(main.records(), "started");
		HandlerRuns completed = HandlerRuns.in(main.records(), "completed");
		WorkerHarness harness = WorkerHarness.onSystemClock(db)
			.concurrency(main.threads())
			.lease(main.lease())
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
		main.run(main.worker(harness), db);
	}

}
