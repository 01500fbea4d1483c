package dev.jobqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;

/** Delayed and prioritised work: claim order asserted on what the store hands out. */
public abstract class ClaimOrderTests extends StoreTests {

	List<String> claim(int limit, Set<String> unlimited, Map<String, Integer> limited) {
		ClaimRequest request = new ClaimRequest("w1", limit, unlimited, limited, Set.of(),
				this.clock.instant().plusSeconds(30));
		List<String> payloads = new ArrayList<>();
		for (ClaimedJob job : this.db.store().claim(request, this.clock.instant())) {
			payloads.add(job.payload().replace("\"", ""));
		}
		return payloads;
	}

	@Test
	void aFloodOfLowPriorityJobsNeverStarvesHigherOnesAndEqualPrioritiesRunFifo() {
		List<JobRequest> mixed = new ArrayList<>();
		List<String> expectedHigh = new ArrayList<>();
		List<String> expectedNormal = new ArrayList<>();
		List<String> expectedLow = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			mixed.add(JobRequest.of("work", "low-" + i).priority(-1));
			expectedLow.add("low-" + i);
			if (i % 250 == 125) {
				mixed.add(JobRequest.of("work", "high-" + i).priority(7));
				expectedHigh.add("high-" + i);
			}
			if (i % 400 == 10) {
				mixed.add(JobRequest.of("work", "normal-" + i));
				expectedNormal.add("normal-" + i);
			}
		}
		// Enqueued in several batches over time: due times grow, so FIFO is by due time.
		for (int from = 0; from < mixed.size(); from += 300) {
			this.harness.queue.enqueueAll(mixed.subList(from, Math.min(from + 300, mixed.size())));
			this.clock.advance(Duration.ofMillis(3));
		}

		List<String> order = new ArrayList<>();
		for (List<String> batch; !(batch = claim(7, Set.of("work"), Map.of())).isEmpty();) {
			order.addAll(batch);
		}

		List<String> expected = new ArrayList<>(expectedHigh);
		expected.addAll(expectedNormal);
		expected.addAll(expectedLow);
		assertThat(order).hasSize(expected.size()).containsExactlyElementsOf(expected);
	}

	@Test
	void aLowPriorityFloodOfOneTypeDoesNotStarveHigherPriorityJobsOfACappedType() {
		List<JobRequest> flood = new ArrayList<>();
		for (int i = 0; i < 500; i++) {
			flood.add(JobRequest.of("bulk", "bulk-" + i));
		}
		this.harness.queue.enqueueAll(flood);
		this.clock.advance(Duration.ofSeconds(1));
		this.harness.queue.enqueue(JobRequest.of("urgent", "urgent-1").priority(10));
		this.harness.queue.enqueue(JobRequest.of("urgent", "urgent-2").priority(10));
		this.harness.queue.enqueue(JobRequest.of("urgent", "urgent-3").priority(10));

		// 4 free slots, "urgent" capped at 2 per process: the two urgent jobs come first,
		// then the oldest bulk.
		assertThat(claim(4, Set.of("bulk"), Map.of("urgent", 2))).containsExactly("urgent-1", "urgent-2", "bulk-0",
				"bulk-1");
	}

	@Test
	void aJobDueLaterIsNotClaimedEarlyWhateverItsPriority() {
		this.harness.queue.enqueue(JobRequest.of("work", "urgent-later").priority(1000).delay(Duration.ofMinutes(5)));
		this.harness.queue.enqueue(JobRequest.of("work", "lowest-now").priority(-1000));

		this.clock.advance(Duration.ofMinutes(5).minusMillis(1));
		assertThat(claim(10, Set.of("work"), Map.of())).containsExactly("lowest-now");
		assertThat(claim(10, Set.of("work"), Map.of())).isEmpty();
		this.clock.advance(Duration.ofMillis(1));
		assertThat(claim(10, Set.of("work"), Map.of())).containsExactly("urgent-later");
	}

	@Test
	void equalPrioritiesRunInDueTimeOrderNotEnqueueOrder() {
		this.harness.queue.enqueue(JobRequest.of("work", "due-in-2m").delay(Duration.ofMinutes(2)));
		this.harness.queue.enqueue(JobRequest.of("work", "due-in-1m").delay(Duration.ofMinutes(1)));
		this.harness.queue.enqueue(JobRequest.of("work", "due-now"));
		this.clock.advance(Duration.ofMinutes(3));
		assertThat(claim(10, Set.of("work"), Map.of())).containsExactly("due-now", "due-in-1m", "due-in-2m");
	}

	@Test
	void theWorkerRunsJobsInClaimOrder() {
		List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.harness.concurrency(1)
			.handle(HandlerDefinition.of("ordered", (payload, context) -> order.add(payload.replace("\"", ""))));
		this.harness.queue.enqueue(JobRequest.of("ordered", "b-low").priority(-1));
		this.harness.queue.enqueue(JobRequest.of("ordered", "a-normal"));
		this.clock.advance(Duration.ofMillis(1));
		this.harness.queue.enqueue(JobRequest.of("ordered", "c-high").priority(3));
		JobWorker worker = this.harness.directWorker("w1");
		while (worker.pollOnce() > 0) {
			// drain
		}
		assertThat(order).containsExactly("c-high", "a-normal", "b-low");
		assertThat(this.db.column("SELECT j.payload FROM job_events e JOIN jobs j ON j.id = e.job_id "
				+ "WHERE e.event = 'CLAIMED' ORDER BY e.id"))
			.containsExactly("\"c-high\"", "\"a-normal\"", "\"b-low\"");
	}

}
