package dev.jobqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.Job;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.QueueFileTests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a stop or a timeout does to a run that has not ended: a repeatable one is handed
 * back (or retried), one that must not run twice fails for a person to look at, and no
 * run ending meanwhile is lost or written twice.
 */
class ShutdownAndTimeoutTests extends QueueFileTests {

	@Test
	void aNonRepeatableRunPastItsTimeoutFailsAndIsNeverStartedAgain() throws Exception {
		AtomicInteger starts = new AtomicInteger();
		this.harness.handle(new HandlerDefinition("charge", (payload, context) -> {
			starts.incrementAndGet();
			Thread.sleep(60_000);
			return null;
		}, 5, Duration.ofSeconds(1), 0, false, "test"));
		long id = this.harness.queue.enqueue("charge", 1);
		ExecutorService executor = Executors.newFixedThreadPool(2);
		JobWorker worker = this.harness.worker("w1", executor);
		worker.pollOnce();
		await().atMost(Duration.ofSeconds(5)).until(() -> starts.get() == 1);

		this.clock.advance(Duration.ofSeconds(2));
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			worker.pollOnce();
			assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
		});
		this.clock.advance(Duration.ofHours(1));
		worker.pollOnce();

		Job job = this.harness.queue.find(id).orElseThrow();
		assertThat(job.errorCode()).isEqualTo(ErrorCodes.TIMEOUT_NOT_REPEATABLE);
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(starts).hasValue(1);
		executor.shutdownNow();
	}

	@Test
	void aRepeatableRunPastItsTimeoutIsStillRetried() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		this.harness.handle(new HandlerDefinition("resize", (payload, context) -> {
			started.countDown();
			Thread.sleep(60_000);
			return null;
		}, 5, Duration.ofSeconds(1), 0, true, "test"));
		long id = this.harness.queue.enqueue("resize", 1);
		ExecutorService executor = Executors.newFixedThreadPool(2);
		JobWorker worker = this.harness.worker("w1", executor);
		worker.pollOnce();
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

		this.clock.advance(Duration.ofSeconds(2));
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			worker.pollOnce();
			assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		});
		assertThat(this.harness.queue.find(id).orElseThrow().errorCode()).isEqualTo(ErrorCodes.TIMEOUT_HANDLER);
		executor.shutdownNow();
	}

	@Test
	void atShutdownARepeatableRunIsHandedBackAndANonRepeatableOneFails() throws Exception {
		CountDownLatch started = new CountDownLatch(2);
		JobInvoker busy = (payload, context) -> {
			started.countDown();
			Thread.sleep(60_000);
			return null;
		};
		this.harness.shutdownTimeout(Duration.ofMillis(100))
			.handle(new HandlerDefinition("resize", busy, 3, null, 0, true, "test"))
			.handle(new HandlerDefinition("charge", busy, 3, null, 0, false, "test"));
		long resize = this.harness.queue.enqueue("resize", 1);
		long charge = this.harness.queue.enqueue("charge", 1);
		JobWorker worker = this.harness.worker("w1", Executors.newFixedThreadPool(2));
		worker.start();
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

		assertThat(worker.stop()).isEqualTo(2);

		Job handedBack = this.harness.queue.find(resize).orElseThrow();
		assertThat(handedBack.status()).isEqualTo(JobStatus.PENDING);
		assertThat(handedBack.attempts()).isZero();
		Job failed = this.harness.queue.find(charge).orElseThrow();
		assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
		assertThat(failed.errorCode()).isEqualTo(ErrorCodes.SHUTDOWN_NOT_REPEATABLE);
		assertThat(failed.attempts()).isEqualTo(1);
		assertThat(this.db.column("SELECT outcome FROM job_attempts WHERE job_id = ?", resize))
			.containsExactly("HANDED_BACK");
		assertThat(this.db.column("SELECT outcome FROM job_attempts WHERE job_id = ?", charge))
			.containsExactly("FAILED");
		assertThat(Invariants.violations(this.db.file())).isEmpty();
	}

	@Test
	void atShutdownANonRepeatableJobWhoseHandlerHadNotBegunIsHandedBackAndNeverBegins() {
		AtomicInteger starts = new AtomicInteger();
		this.harness.handle(new HandlerDefinition("charge", (payload, context) -> starts.incrementAndGet(), 3, null, 0,
				false, "test"));
		long id = this.harness.queue.enqueue("charge", 1);
		HeldTasks executor = new HeldTasks();
		JobWorker worker = this.harness.worker("w1", executor);
		assertThat(worker.pollOnce()).isEqualTo(1);

		assertThat(worker.stop()).isEqualTo(1);
		executor.runHeld();

		Job job = this.harness.queue.find(id).orElseThrow();
		assertThat(job.status()).isEqualTo(JobStatus.PENDING);
		assertThat(job.attempts()).isZero();
		assertThat(starts).hasValue(0);
	}

	/**
	 * Runs ending at every moment of a stop (handlers of 0–3 ms, no shutdown timeout):
	 * each run is either written or handed back, never neither (a job left running) nor
	 * both.
	 */
	@Test
	void runsEndingDuringAStopAreWrittenOrHandedBackNeverNeitherNorBoth() {
		this.harness.concurrency(8)
			.shutdownTimeout(Duration.ZERO)
			.handle(HandlerDefinition.of("quick", (payload, context) -> {
				long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(Integer.parseInt(payload) * 300L);
				while (System.nanoTime() < until) {
					Thread.onSpinWait();
				}
				return null;
			}));
		for (int round = 0; round < 40; round++) {
			List<Long> ids = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				ids.add(this.harness.queue.enqueue(JobRequest.of("quick", i + round % 3)));
			}
			ExecutorService executor = Executors.newFixedThreadPool(8);
			JobWorker worker = this.harness.worker("w" + round, executor);
			worker.start();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.db.count("SELECT count(*) FROM jobs WHERE status = 'pending' AND attempts = 0 "
						+ "AND id >= " + ids.get(0)) < 8 || worker.runningCount() > 0);
			worker.stop();
			assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running'")).as("round " + round)
				.isZero();
		}
		assertThat(this.db.count("SELECT count(*) FROM job_attempts WHERE outcome IS NULL")).isZero();
		assertThat(Invariants.violations(this.db.file())).isEmpty();
	}

	/** Keeps the tasks it is given until the test runs them, even after a shutdown. */
	static final class HeldTasks extends InertExecutorService {

		private final List<Runnable> held = new ArrayList<>();

		@Override
		public synchronized void execute(Runnable command) {
			this.held.add(command);
		}

		synchronized void runHeld() {
			this.held.forEach(Runnable::run);
			this.held.clear();
		}

	}

}
