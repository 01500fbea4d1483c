package dev.jobqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.jobqueue.Job;
import dev.jobqueue.JobSnoozedException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.StoreTests;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

public abstract class SnoozeAndCancelTests extends StoreTests {

	ExecutorService executor = Executors.newFixedThreadPool(2);

	@AfterEach
	void stopExecutor() {
		this.executor.shutdownNow();
	}

	List<Object> events(long id) {
		return this.db.column("SELECT event FROM job_events WHERE job_id = ? ORDER BY id", id);
	}

	@Test
	void snoozeKeepsTheAttemptCount() {
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		AtomicInteger calls = new AtomicInteger();
		this.harness.handle(HandlerDefinition.of("waits", (payload, context) -> {
			attempts.add(context.attempt());
			switch (calls.incrementAndGet()) {
				case 1 -> throw new IllegalStateException("first attempt fails");
				case 2 -> context.snooze(Duration.ofMinutes(1));
				case 3 -> throw new JobSnoozedException(Duration.ofMinutes(2));
				default -> {
				}
			}
			return "done";
		}));
		long id = this.harness.queue.enqueue(dev.jobqueue.JobRequest.of("waits", 1).maxAttempts(2));
		JobWorker worker = this.harness.directWorker("w1");
		worker.pollOnce();
		this.clock.advance(Duration.ofMinutes(1));
		worker.pollOnce();
		Job snoozed = this.harness.queue.find(id).orElseThrow();
		assertThat(snoozed.status()).isEqualTo(JobStatus.PENDING);
		assertThat(snoozed.attempts()).isEqualTo(1);
		this.clock.advance(Duration.ofMinutes(1));
		worker.pollOnce();
		this.clock.advance(Duration.ofMinutes(2));
		worker.pollOnce();

		Job done = this.harness.queue.find(id).orElseThrow();
		assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(done.attempts()).isEqualTo(2);
		// Two snoozes on attempt 2 of 2: neither used the last attempt up.
		assertThat(attempts).containsExactly(1, 2, 2, 2);
		assertThat(
				this.db.column("SELECT outcome || ':' || attempt FROM job_attempts WHERE job_id = ? ORDER BY run", id))
			.containsExactly("FAILED:1", "SNOOZED:2", "SNOOZED:2", "SUCCEEDED:2");
	}

	@Test
	void theSnoozeCapEndsInAClearFailureCode() {
		this.harness.maxSnoozes(3).handle(HandlerDefinition.of("forever", (payload, context) -> {
			throw new JobSnoozedException(Duration.ofSeconds(5));
		}));
		long id = this.harness.queue.enqueue(dev.jobqueue.JobRequest.of("forever", 1).maxAttempts(5));
		JobWorker worker = this.harness.directWorker("w1");
		for (int i = 0; i < 10; i++) {
			worker.pollOnce();
			this.clock.advance(Duration.ofSeconds(5));
		}
		Job job = this.harness.queue.find(id).orElseThrow();
		assertThat(job.status()).isEqualTo(JobStatus.FAILED);
		assertThat(job.errorCode()).isEqualTo("SNOOZE:LIMIT_REACHED");
		assertThat(job.errorDetail()).contains("jobqueue.worker.max-snoozes");
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(this.db.count("SELECT count(*) FROM job_attempts WHERE job_id = ? AND outcome = 'SNOOZED'", id))
			.isEqualTo(3);
	}

	@Test
	void cancelOfARunningJobThatIgnoresInterruptsEndsCancelledWithinTheCancelTimeoutAndIsReported() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		AtomicBoolean release = new AtomicBoolean();
		AtomicInteger interruptsIgnored = new AtomicInteger();
		AtomicInteger staleOutcomes = new AtomicInteger();
		this.harness.cancelTimeout(Duration.ofSeconds(10)).listener(new WorkerListener() {
			@Override
			public void interruptIgnored(ClaimedJob job, String reason) {
				assertThat(reason).isEqualTo("CANCEL");
				interruptsIgnored.incrementAndGet();
			}

			@Override
			public void staleCompletion(ClaimedJob job, Completion completion) {
				staleOutcomes.incrementAndGet();
			}
		}).handle(HandlerDefinition.of("stubborn", (payload, context) -> {
			started.countDown();
			while (!release.get()) {
				Thread.interrupted(); // swallows every interrupt, ignores isCancelled()
				Thread.onSpinWait();
			}
			return "finished anyway";
		}));
		long id = this.harness.queue.enqueue("stubborn", 1);
		JobWorker worker = this.harness.worker("w1", this.executor);
		this.harness.queue.setSignals(worker);
		worker.pollOnce();
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

		assertThat(this.harness.queue.cancel(id)).isTrue();
		this.clock.advance(Duration.ofSeconds(9));
		worker.pollOnce();
		assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.RUNNING);

		this.clock.advance(Duration.ofSeconds(1));
		worker.pollOnce();
		Job cancelled = this.harness.queue.find(id).orElseThrow();
		assertThat(cancelled.status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(events(id)).containsExactly("ENQUEUED", "CLAIMED", "CANCEL_REQUESTED", "CANCEL_IGNORED",
				"CANCELLED");
		assertThat(this.db.column("SELECT outcome FROM job_attempts WHERE job_id = ?", id))
			.containsExactly("CANCELLED");
		assertThat(interruptsIgnored).hasValue(1);
		assertThat(worker.runningCount()).as("the stubborn handler still holds its slot").isEqualTo(1);

		release.set(true);
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			worker.pollOnce();
			assertThat(worker.runningCount()).isZero();
		});
		assertThat(staleOutcomes).hasValue(0);
		assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.harness.queue.find(id).orElseThrow().result()).isNull();
	}

	@Test
	void cancelFromAnotherProcessInterruptsTheHandlerAtTheNextLeaseRenewal() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		this.harness.lease(Duration.ofSeconds(3)).handle(HandlerDefinition.of("long", (payload, context) -> {
			started.countDown();
			Thread.sleep(60_000);
			return null;
		}));
		long id = this.harness.queue.enqueue("long", 1);
		JobWorker worker = this.harness.worker("w1", this.executor);
		worker.pollOnce();
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

		try (StoreFixture otherProcess = this.db.anotherProcess()) {
			WorkerHarness operator = new WorkerHarness(otherProcess, this.clock);
			assertThat(operator.queue.cancel(id)).isTrue();
		}
		this.clock.advance(Duration.ofSeconds(1));
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			worker.pollOnce();
			assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		});
		assertThat(events(id)).containsExactly("ENQUEUED", "CLAIMED", "CANCEL_REQUESTED", "CANCELLED");
	}

	@Test
	void aTimedOutHandlerThatIgnoresItsInterruptGetsAnEvent() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		AtomicBoolean release = new AtomicBoolean();
		this.harness.handle(new HandlerDefinition("slow", (payload, context) -> {
			started.countDown();
			while (!release.get()) {
				Thread.interrupted();
				Thread.onSpinWait();
			}
			return null;
		}, 1, Duration.ofSeconds(30), 0, true, "test"));
		long id = this.harness.queue.enqueue("slow", 1);
		JobWorker worker = this.harness.worker("w1", this.executor);
		worker.pollOnce();
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
		this.clock.advance(Duration.ofSeconds(31));
		worker.pollOnce();
		this.clock.advance(Duration.ofSeconds(30));
		worker.pollOnce();
		assertThat(events(id)).contains("TIMEOUT_IGNORED");
		release.set(true);
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			worker.pollOnce();
			assertThat(this.harness.queue.find(id).orElseThrow().errorCode()).isEqualTo("TIMEOUT:HANDLER");
		});
	}

}
