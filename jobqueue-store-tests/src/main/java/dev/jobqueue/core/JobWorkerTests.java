package dev.jobqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.jobqueue.InvalidJobInputException;
import dev.jobqueue.Job;
import dev.jobqueue.JobErrorCode;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreTests;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

public abstract class JobWorkerTests extends StoreTests {

	record Greeting(String name) {
	}

	@JobErrorCode(value = "DEPENDENCY:GEOCODER")
	static class GeocoderDown extends RuntimeException {

		GeocoderDown() {
			super("geocoder answered 503");
		}

	}

	@Test
	void runsAJobAndKeepsItsResultAttemptAndEvents() {
		this.harness.handle(HandlerDefinition.of("greet", (payload, context) -> "hello "
				+ ((Greeting) WorkerHarness.CODEC.fromJson(payload, Greeting.class)).name()));
		long id = this.harness.queue.enqueue("greet", new Greeting("ada"));
		JobWorker worker = this.harness.directWorker("w1");

		assertThat(worker.pollOnce()).isEqualTo(1);

		Job job = this.harness.queue.find(id).orElseThrow();
		assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job.result()).isEqualTo("\"hello ada\"");
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(job.workerId()).isEqualTo("w1");
		assertThat(this.db.column("SELECT outcome FROM job_attempts WHERE job_id = ?", id))
			.containsExactly("SUCCEEDED");
		assertThat(this.db.column("SELECT event FROM job_events WHERE job_id = ? ORDER BY id", id))
			.containsExactly("ENQUEUED", "CLAIMED", "SUCCEEDED");
	}

	@Test
	void failedAttemptWaitsOutItsBackoffThenRunsAgain() {
		AtomicInteger calls = new AtomicInteger();
		this.harness.handle(HandlerDefinition.of("flaky", (payload, context) -> {
			if (calls.incrementAndGet() == 1) {
				throw new GeocoderDown();
			}
			return null;
		}));
		long id = this.harness.queue.enqueue("flaky", "x");
		JobWorker worker = this.harness.directWorker("w1");
		worker.pollOnce();

		Job afterFailure = this.harness.queue.find(id).orElseThrow();
		assertThat(afterFailure.status()).isEqualTo(JobStatus.PENDING);
		assertThat(afterFailure.errorCode()).isEqualTo("DEPENDENCY:GEOCODER");
		// attempt 1 of backoff 10s with jitter 0.5 -> 5s + 0.5 * 5s = 7.5s
		assertThat(afterFailure.runAt()).isEqualTo(this.clock.instant().plusMillis(7500));

		this.clock.advance(Duration.ofSeconds(7));
		assertThat(worker.pollOnce()).isZero();
		this.clock.advance(Duration.ofMillis(500));
		assertThat(worker.pollOnce()).isEqualTo(1);

		Job done = this.harness.queue.find(id).orElseThrow();
		assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(done.attempts()).isEqualTo(2);
		assertThat(this.db.column("SELECT event FROM job_events WHERE job_id = ? ORDER BY id", id))
			.containsExactly("ENQUEUED", "CLAIMED", "RETRY_SCHEDULED", "CLAIMED", "SUCCEEDED");
		assertThat(this.db.column("SELECT error_code FROM job_attempts WHERE job_id = ? ORDER BY run", id))
			.containsExactly("DEPENDENCY:GEOCODER", null);
	}

	@Test
	void failsForGoodAfterMaxAttemptsWithGrowingBackoff() {
		this.harness.handle(HandlerDefinition.of("broken", (payload, context) -> {
			throw new IllegalStateException("always");
		}));
		long id = this.harness.queue.enqueue(JobRequest.of("broken", 1).maxAttempts(3));
		JobWorker worker = this.harness.directWorker("w1");
		worker.pollOnce();
		this.clock.advance(Duration.ofMillis(7500));
		worker.pollOnce();
		Job second = this.harness.queue.find(id).orElseThrow();
		// attempt 2: base 20s -> 15s
		assertThat(second.runAt()).isEqualTo(this.clock.instant().plusSeconds(15));
		this.clock.advance(Duration.ofSeconds(15));
		worker.pollOnce();

		Job job = this.harness.queue.find(id).orElseThrow();
		assertThat(job.status()).isEqualTo(JobStatus.FAILED);
		assertThat(job.attempts()).isEqualTo(3);
		assertThat(job.errorCode()).isEqualTo("INTERNAL:IllegalStateException");
		assertThat(job.errorDetail()).contains("always");
		assertThat(job.finishedAt()).isEqualTo(this.clock.instant());
	}

	@Test
	void aFailedAttemptKeepsItsStackTraceWithTheAttempt() {
		this.harness.handle(HandlerDefinition.of("broken", (payload, context) -> {
			throw new IllegalStateException("always", new java.io.IOException("disk"));
		}));
		long id = this.harness.queue.enqueue(JobRequest.of("broken", 1).maxAttempts(1));
		this.harness.directWorker("w1").pollOnce();

		assertThat(this.db.column("SELECT error_trace FROM job_attempts WHERE job_id = ?", id)).singleElement()
			.asString()
			.startsWith("java.lang.IllegalStateException: always\n\tat dev.jobqueue.core.JobWorkerTests")
			.contains("Caused by: java.io.IOException: disk");
	}

	@Test
	void invalidInputFailsOnceAndIsNotRetried() {
		this.harness.handle(HandlerDefinition.of("strict", (payload, context) -> {
			throw new InvalidJobInputException("SCHEMA_MISMATCH", "field 'name' missing", null);
		}));
		long id = this.harness.queue.enqueue(JobRequest.of("strict", 1).maxAttempts(5));
		this.harness.directWorker("w1").pollOnce();

		Job job = this.harness.queue.find(id).orElseThrow();
		assertThat(job.status()).isEqualTo(JobStatus.FAILED);
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(job.errorCode()).isEqualTo("INVALID_INPUT:SCHEMA_MISMATCH");
	}

	@Test
	void snoozeGivesTheAttemptBackUntilTheCap() {
		this.harness.maxSnoozes(2).handle(HandlerDefinition.of("waiting", (payload, context) -> {
			context.snooze(Duration.ofMinutes(1));
			return null;
		}));
		long id = this.harness.queue.enqueue("waiting", 1);
		JobWorker worker = this.harness.directWorker("w1");
		for (int i = 0; i < 2; i++) {
			worker.pollOnce();
			Job snoozed = this.harness.queue.find(id).orElseThrow();
			assertThat(snoozed.status()).isEqualTo(JobStatus.PENDING);
			assertThat(snoozed.attempts()).isZero();
			assertThat(snoozed.runAt()).isEqualTo(this.clock.instant().plus(Duration.ofMinutes(1)));
			this.clock.advance(Duration.ofMinutes(1));
		}
		worker.pollOnce();
		Job job = this.harness.queue.find(id).orElseThrow();
		assertThat(job.status()).isEqualTo(JobStatus.FAILED);
		assertThat(job.errorCode()).isEqualTo("SNOOZE:LIMIT_REACHED");
	}

	@Test
	void claimsHighestPriorityFirstThenFifoAndNothingDueLater() {
		this.harness.concurrency(1);
		List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.harness.handle(HandlerDefinition.of("ordered", (payload, context) -> order.add(payload)));
		this.harness.queue.enqueue(JobRequest.of("ordered", "low-1").priority(-5));
		this.harness.queue.enqueue(JobRequest.of("ordered", "later").priority(100).delay(Duration.ofMinutes(5)));
		this.harness.queue.enqueue(JobRequest.of("ordered", "normal-1"));
		this.clock.advance(Duration.ofMillis(1));
		this.harness.queue.enqueue(JobRequest.of("ordered", "high").priority(10));
		this.harness.queue.enqueue(JobRequest.of("ordered", "normal-2"));
		JobWorker worker = this.harness.directWorker("w1");
		while (worker.pollOnce() > 0) {
			// drain what is due
		}
		assertThat(order).containsExactly("\"high\"", "\"normal-1\"", "\"normal-2\"", "\"low-1\"");
		this.clock.advance(Duration.ofMinutes(5));
		worker.pollOnce();
		assertThat(order).last().isEqualTo("\"later\"");
	}

	@Test
	void timedOutHandlerIsInterruptedAndFailsWithTimeoutHandler() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		this.harness.handle(new HandlerDefinition("slow", (payload, context) -> {
			started.countDown();
			Thread.sleep(60_000);
			return null;
		}, 1, Duration.ofSeconds(30), 0, true, "test"));
		long id = this.harness.queue.enqueue("slow", 1);
		ExecutorService executor = Executors.newFixedThreadPool(2);
		JobWorker worker = this.harness.worker("w1", executor);
		worker.pollOnce();
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
		this.clock.advance(Duration.ofSeconds(31));
		worker.pollOnce();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			worker.pollOnce();
			assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
		});
		assertThat(this.harness.queue.find(id).orElseThrow().errorCode()).isEqualTo("TIMEOUT:HANDLER");
		executor.shutdownNow();
	}

	@Test
	void cancelOfARunningJobInterruptsItAndRecordsCancelled() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		this.harness.handle(HandlerDefinition.of("long", (payload, context) -> {
			started.countDown();
			Thread.sleep(60_000);
			return null;
		}));
		long id = this.harness.queue.enqueue("long", 1);
		ExecutorService executor = Executors.newFixedThreadPool(2);
		JobWorker worker = this.harness.worker("w1", executor);
		this.harness.queue.setSignals(worker);
		worker.pollOnce();
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

		assertThat(this.harness.queue.cancel(id)).isTrue();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			worker.pollOnce();
			assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		});
		assertThat(this.db.column("SELECT outcome FROM job_attempts WHERE job_id = ?", id))
			.containsExactly("CANCELLED");
		executor.shutdownNow();
	}

	@Test
	void cancelOfAPendingJobRemovesItFromClaims() {
		AtomicInteger calls = new AtomicInteger();
		this.harness.handle(HandlerDefinition.of("never", (payload, context) -> calls.incrementAndGet()));
		long id = this.harness.queue.enqueue("never", 1);
		assertThat(this.harness.queue.cancel(id)).isTrue();
		assertThat(this.harness.directWorker("w1").pollOnce()).isZero();
		assertThat(calls).hasValue(0);
		assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.harness.queue.retry(id)).isTrue();
		assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
	}

	@Test
	void perHandlerConcurrencyLimitsClaims() {
		this.harness.concurrency(8)
			.handle(new HandlerDefinition("capped", (payload, context) -> null, 0, null, 2, true, "test"));
		for (int i = 0; i < 5; i++) {
			this.harness.queue.enqueue("capped", i);
		}
		JobWorker worker = this.harness.worker("w1", Executors.newSingleThreadExecutor((r) -> {
			Thread t = new Thread(() -> {
			});
			return t; // never starts: runs stay in flight
		}));
		assertThat(worker.pollOnce()).isEqualTo(2);
		assertThat(worker.pollOnce()).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running'")).isEqualTo(2);
	}

	@Test
	void expiredLeaseIsRecoveredAndCountedOrFailedWhenNotRepeatable() {
		this.harness.handle(HandlerDefinition.of("safe", (payload, context) -> null))
			.handle(new HandlerDefinition("once", (payload, context) -> null, 0, null, 0, false, "test"));
		long safe = this.harness.queue.enqueue("safe", 1);
		long once = this.harness.queue.enqueue("once", 1);
		ClaimRequest request = new ClaimRequest("dead-worker", 10, java.util.Set.of("safe", "once"), java.util.Map.of(),
				java.util.Set.of("once"), this.clock.instant().plusSeconds(30));
		assertThat(this.db.store().claim(request, this.clock.instant())).hasSize(2);

		this.clock.advance(Duration.ofSeconds(31));
		assertThat(this.db.store().recoverExpiredLeases(this.clock.instant(), 100)).isEqualTo(2);

		Job recovered = this.harness.queue.find(safe).orElseThrow();
		assertThat(recovered.status()).isEqualTo(JobStatus.PENDING);
		assertThat(recovered.attempts()).isEqualTo(1);
		Job failed = this.harness.queue.find(once).orElseThrow();
		assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
		assertThat(failed.errorCode()).isEqualTo("LEASE_EXPIRED:NOT_REPEATABLE");
		assertThat(this.db.column("SELECT event FROM job_events WHERE job_id = ? ORDER BY id", safe))
			.containsExactly("ENQUEUED", "CLAIMED", "RECOVERED");

		this.harness.directWorker("w2").pollOnce();
		assertThat(this.harness.queue.find(safe).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(this.db.column("SELECT outcome FROM job_attempts WHERE job_id = ? ORDER BY run", safe))
			.containsExactly("LEASE_EXPIRED", "SUCCEEDED");
	}

	@Test
	void staleWorkersCompletionIsRejectedByTheFencingToken() {
		this.harness.handle(HandlerDefinition.of("fenced", (payload, context) -> null));
		long id = this.harness.queue.enqueue("fenced", 1);
		ClaimRequest first = new ClaimRequest("stale", 1, java.util.Set.of("fenced"), java.util.Map.of(),
				java.util.Set.of(), this.clock.instant().plusSeconds(30));
		ClaimedJob staleRun = this.db.store().claim(first, this.clock.instant()).get(0);
		this.clock.advance(Duration.ofSeconds(31));
		this.db.store().recoverExpiredLeases(this.clock.instant(), 100);
		ClaimRequest second = new ClaimRequest("fresh", 1, java.util.Set.of("fenced"), java.util.Map.of(),
				java.util.Set.of(), this.clock.instant().plusSeconds(30));
		ClaimedJob freshRun = this.db.store().claim(second, this.clock.instant()).get(0);
		assertThat(freshRun.run()).isEqualTo(staleRun.run() + 1);

		boolean[] stale = this.db.store()
			.complete(List.of(Completion.failed(staleRun, "INTERNAL:X", "late")), "stale", this.clock.instant());
		assertThat(stale).containsExactly(false);
		assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.RUNNING);
		boolean[] fresh = this.db.store()
			.complete(List.of(Completion.succeeded(freshRun, null)), "fresh", this.clock.instant());
		assertThat(fresh).containsExactly(true);
		assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
	}

}
