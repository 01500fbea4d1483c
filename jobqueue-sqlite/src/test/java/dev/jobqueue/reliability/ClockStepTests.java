package dev.jobqueue.reliability;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.LongTest;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two workers, each with its own connections and its own wall clock (two processes, as
 * far as the queue can tell), while their clocks are stepped back and forward by minutes,
 * far more than the 1 s lease: no job runs twice, none is recovered from a live worker,
 * and no handler times out because of a step (their 5 s timeouts and every other local
 * deadline follow the monotonic clock).
 */
@LongTest
class ClockStepTests {

	private static final int JOBS = 300;

	@TempDir
	Path dir;

	@Test
	void clocksSteppedByMinutesCauseNoDoubleRunAndNoTimeout() throws Exception {
		Path file = this.dir.resolve("queue.db");
		Map<Long, AtomicInteger> bodies = new ConcurrentHashMap<>();
		HandlerDefinition work = new HandlerDefinition("work", (payload, context) -> {
			bodies.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
			Thread.sleep(Long.parseLong(payload));
			return null;
		}, 1, Duration.ofSeconds(5), 0, false, "test");
		HandlerRegistry handlers = new HandlerRegistry();
		handlers.register(work);
		SteppedClock clockA = new SteppedClock();
		SteppedClock clockB = new SteppedClock();
		try (TestDatabase enqueuing = TestDatabase.create(file, "");
				TestDatabase processA = TestDatabase.create(file, "");
				TestDatabase processB = TestDatabase.create(file, "")) {
			JobWorker workerA = worker("a", processA, work, clockA);
			JobWorker workerB = worker("b", processB, work, clockB);
			workerA.start();
			workerB.start();
			DefaultJobQueue queue = new DefaultJobQueue(enqueuing.store(), enqueuing.admin(), WorkerHarness.CODEC,
					handlers, Clock.systemUTC(), new EnqueueLimits(1, 1 << 16), null);
			List<JobRequest> jobs = new ArrayList<>();
			for (int i = 0; i < JOBS; i++) {
				jobs.add(JobRequest.of("work", 100 + (i * 37) % 300));
			}
			queue.enqueueAll(jobs);

			// Each step waits for work to go on first, so steps land while jobs run on
			// both sides.
			Duration[][] steps = { { Duration.ofMinutes(-5), Duration.ZERO },
					{ Duration.ofMinutes(-5), Duration.ofMinutes(7) },
					{ Duration.ofMinutes(10), Duration.ofMinutes(7) },
					{ Duration.ofMinutes(10), Duration.ofMinutes(-3) }, { Duration.ZERO, Duration.ZERO } };
			for (Duration[] step : steps) {
				long before = enqueuing.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'");
				await().atMost(Duration.ofSeconds(60))
					.until(() -> enqueuing.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'") >= Math
						.min(JOBS, before + 30));
				clockA.offset = step[0];
				clockB.offset = step[1];
			}
			await().atMost(Duration.ofSeconds(120))
				.until(() -> enqueuing.count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')") == 0);
			workerA.stop();
			workerB.stop();

			assertThat(enqueuing.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'")).isEqualTo(JOBS);
			assertThat(bodies.values().stream().filter((runs) -> runs.get() > 1).count()).as("double runs").isZero();
			assertThat(enqueuing.count("SELECT count(*) FROM job_attempts WHERE outcome = 'LEASE_EXPIRED' "
					+ "OR error_code LIKE 'TIMEOUT:%'"))
				.as("recoveries and timeouts")
				.isZero();
			assertThat(Invariants.violations(file)).isEmpty();
		}
	}

	private static JobWorker worker(String name, TestDatabase db, HandlerDefinition work, Clock clock) {
		return WorkerHarness.onClock(db, clock)
			.handle(work)
			.concurrency(4)
			.pollInterval(Duration.ofMillis(50))
			.lease(Duration.ofSeconds(1))
			.shutdownTimeout(Duration.ofSeconds(5))
			.maxSnoozes(3)
			.retry(new RetryPolicy(Duration.ofMillis(20), Duration.ofMillis(200), () -> 0.5))
			.workerDefaultLimits()
			.worker("clock-step-" + name, Executors.newFixedThreadPool(4));
	}

	/**
	 * The system clock, stepped by an offset the test sets (as when someone sets the
	 * machine's time).
	 */
	static final class SteppedClock extends Clock {

		volatile Duration offset = Duration.ZERO;

		@Override
		public Instant instant() {
			return Clock.systemUTC().instant().plus(this.offset);
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			return this;
		}

	}

}
