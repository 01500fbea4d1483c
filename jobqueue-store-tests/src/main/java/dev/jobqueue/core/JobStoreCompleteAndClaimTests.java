package dev.jobqueue.core;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.CompleteAndClaim;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;

/** Outcomes and the next claim in one transaction, fenced like the separate calls. */
public abstract class JobStoreCompleteAndClaimTests extends StoreTests {

	static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	@Test
	void writesOutcomesThenClaimsTheNextJobs() {
		List<Long> ids = enqueue(3);
		ClaimedJob first = this.db.store().claim(request(1), NOW).get(0);

		CompleteAndClaim result = this.db.store()
			.completeAndClaim(List.of(Completion.succeeded(first, null)), "w1", request(2), NOW.plusSeconds(1));

		assertThat(result.applied()).containsExactly(true);
		assertThat(result.claimed()).extracting(ClaimedJob::id).containsExactly(ids.get(1), ids.get(2));
		assertThat(this.db.column("SELECT status FROM jobs ORDER BY id")).containsExactly("succeeded", "running",
				"running");
		assertThat(this.db.column("SELECT event FROM job_events WHERE job_id = ? ORDER BY id", ids.get(0)))
			.containsExactly("ENQUEUED", "CLAIMED", "SUCCEEDED");
		assertThat(this.db.column("SELECT outcome FROM job_attempts WHERE job_id = ?", ids.get(0)))
			.containsExactly("SUCCEEDED");
	}

	@Test
	void rejectsTheOutcomeOfARunThatNoLongerHoldsItsJobAndStillClaims() {
		List<Long> ids = enqueue(2);
		ClaimedJob first = this.db.store().claim(request(1), NOW).get(0);
		ClaimedJob stale = new ClaimedJob(first.id(), first.type(), first.payload(), first.priority(), first.run() - 1,
				first.attempt(), first.maxAttempts(), first.snoozes(), first.runAt(), first.createdAt(),
				first.traceContext());

		CompleteAndClaim result = this.db.store()
			.completeAndClaim(List.of(Completion.succeeded(stale, null)), "w1", request(1), NOW.plusSeconds(1));

		assertThat(result.applied()).containsExactly(false);
		assertThat(result.claimed()).extracting(ClaimedJob::id).containsExactly(ids.get(1));
		assertThat(this.db.column("SELECT status FROM jobs ORDER BY id")).containsExactly("running", "running");
	}

	@Test
	void aJobSentBackToPendingCanBeClaimedAgainInTheSameTransaction() {
		enqueue(1);
		ClaimedJob first = this.db.store().claim(request(1), NOW).get(0);

		CompleteAndClaim result = this.db.store()
			.completeAndClaim(List.of(Completion.snoozed(first, NOW)), "w1", request(1), NOW.plusSeconds(1));

		assertThat(result.applied()).containsExactly(true);
		assertThat(result.claimed()).singleElement().satisfies((again) -> {
			assertThat(again.id()).isEqualTo(first.id());
			assertThat(again.run()).isEqualTo(first.run() + 1);
		});
	}

	private List<Long> enqueue(int count) {
		List<NewJob> jobs = new java.util.ArrayList<>();
		for (int i = 0; i < count; i++) {
			jobs.add(new NewJob("work", "{}", 0, NOW, 3, null, null));
		}
		return this.db.store().enqueue(jobs, NOW, () -> {
		});
	}

	private static ClaimRequest request(int limit) {
		return new ClaimRequest("w1", limit, Set.of("work"), Map.of(), Set.of(), NOW.plusSeconds(60));
	}

}
