package dev.jobqueue.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Enqueue, dedup and claim quotas as every store must keep them. */
public abstract class EnqueueAndDedupTests extends StoreTests {

	@Test
	void dedupUnderConcurrentEnqueuesYieldsOneJob() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(8);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<Long>> results = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			int n = i;
			Callable<Long> enqueue = () -> {
				start.await();
				return this.harness.queue.enqueue(JobRequest.of("mail", n).dedupKey("welcome-42"));
			};
			results.add(pool.submit(enqueue));
		}
		start.countDown();
		Set<Long> ids = new HashSet<>();
		for (Future<Long> result : results) {
			ids.add(result.get());
		}
		pool.shutdown();
		assertThat(ids).hasSize(1);
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE dedup_key = 'welcome-42'")).isEqualTo(1);
	}

	@Test
	void dedupKeyIsFreeAgainOnceTheJobFinished() {
		this.harness.handle(HandlerDefinition.of("mail", (payload, context) -> null));
		long first = this.harness.queue.enqueue(JobRequest.of("mail", 1).dedupKey("k"));
		assertThat(this.harness.queue.enqueue(JobRequest.of("mail", 2).dedupKey("k"))).isEqualTo(first);
		this.harness.directWorker("w").pollOnce();
		long second = this.harness.queue.enqueue(JobRequest.of("mail", 3).dedupKey("k"));
		assertThat(second).isNotEqualTo(first);
	}

	@Test
	void aRetryThatWouldShareAnUnfinishedJobsDedupKeyFailsSayingWhatToDo() {
		this.harness.handle(HandlerDefinition.of("mail", (payload, context) -> {
			throw new IllegalStateException("mail server down");
		}));
		long failed = this.harness.queue.enqueue(JobRequest.of("mail", 1).dedupKey("k").maxAttempts(1));
		this.harness.directWorker("w").pollOnce();
		assertThat(this.harness.queue.find(failed))
			.hasValueSatisfying((job) -> assertThat(job.status()).isEqualTo(JobStatus.FAILED));
		long pending = this.harness.queue.enqueue(JobRequest.of("mail", 2).dedupKey("k"));
		assertThat(pending).isNotEqualTo(failed);
		assertThatThrownBy(() -> this.harness.queue.retry(failed)).isInstanceOf(JobQueueException.class)
			.hasMessageContaining("Job " + failed + " cannot be retried")
			.hasMessageContaining("same dedup key")
			.hasMessageContaining("cancel it first");
		assertThat(this.harness.queue.find(failed))
			.hasValueSatisfying((job) -> assertThat(job.status()).isEqualTo(JobStatus.FAILED));
	}

	@Test
	void enqueueAllIsAllOrNothing() {
		List<JobRequest> requests = List.of(JobRequest.of("a", 1), JobRequest.of("a", 2).priority(5000));
		assertThatThrownBy(() -> this.harness.queue.enqueueAll(requests)).isInstanceOf(JobQueueException.class)
			.hasMessageContaining("Priority 5000")
			.hasMessageContaining("between -1000 and 1000");
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();

		List<Long> ids = this.harness.queue.enqueueAll(List.of(JobRequest.of("a", 1), JobRequest.of("b", 2)));
		assertThat(ids).hasSize(2);
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE event = 'ENQUEUED'")).isEqualTo(2);
	}

	@Test
	void badRequestsFailAtEnqueueSayingWhatToChange() {
		assertThatThrownBy(() -> this.harness.queue.enqueue(" ", 1)).hasMessageContaining("must not be null or blank");
		assertThatThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("a", 1).maxAttempts(0)))
			.hasMessageContaining("between 1 and 1000");
		assertThatThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("a", 1).delay(java.time.Duration.ofDays(-1))))
			.hasMessageContaining("Delay");
		assertThatThrownBy(() -> this.harness.queue.enqueue("a", "x".repeat(70_000)))
			.hasMessageContaining("jobqueue.max-payload-size")
			.hasMessageContaining("enqueue a reference");
		assertThatThrownBy(() -> this.harness.queue.enqueue("a", new Object() {
			@SuppressWarnings("unused")
			public Object getSelf() {
				return this;
			}
		})).hasMessageContaining("cannot be written as JSON");
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
	}

	@Test
	void perTypeClaimsHonourTheirQuota() {
		for (int i = 0; i < 6; i++) {
			this.harness.queue.enqueue("capped", i);
			this.harness.queue.enqueue("free", i);
		}
		ClaimRequest request = new ClaimRequest("w", 5, Set.of("free"), Map.of("capped", 2), Set.of(),
				Instant.parse("2026-01-01T00:01:00Z"));
		var claimed = this.db.store().claim(request, this.clock.instant());
		// The oldest five, except that the capped type gets no more than its two slots.
		assertThat(claimed).extracting((job) -> job.type() + ":" + job.payload())
			.containsExactly("capped:0", "free:0", "capped:1", "free:1", "free:2");
		var next = this.db.store()
			.claim(new ClaimRequest("w", 5, Set.of(), Map.of("capped", 1), Set.of(),
					Instant.parse("2026-01-01T00:01:00Z")), this.clock.instant());
		assertThat(next).extracting((job) -> job.type() + ":" + job.payload()).containsExactly("capped:2");
	}

}
