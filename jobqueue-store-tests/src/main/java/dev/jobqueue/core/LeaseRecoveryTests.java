package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.ExpiredLease;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.QueueInsights.Attempt;
import dev.jobqueue.core.store.QueueInsights.Event;
import dev.jobqueue.core.store.QueueInsights.JobDetail;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run whose worker stops renewing its lease, on every store: once the lease expires,
 * recovery takes the job back (pending again while it may run again, failed when it must
 * not run twice or has no attempt left, cancelled when a cancel was asked for), ends the
 * run's attempt as {@code LEASE_EXPIRED} with an event, and the lost run's late outcome
 * is refused. Both ways in are covered: the sweep
 * ({@code recoverExpiredLeases(now, limit)}) and the two steps of a lease seen expired,
 * then recovered unless renewed since.
 */
public abstract class LeaseRecoveryTests extends StoreTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private ClaimedJob claim(String type, Set<String> notRepeatable) {
		Instant now = this.clock.instant();
		List<ClaimedJob> claimed = this.db.store()
			.claim(new ClaimRequest("w1", 1, Set.of(type), Map.of(), notRepeatable, now.plus(LEASE)), now);
		assertThat(claimed).hasSize(1);
		return claimed.get(0);
	}

	private JobDetail detail(long id) {
		return this.db.insights().job(id, 100).orElseThrow();
	}

	private Instant pastTheLease() {
		this.clock.advance(LEASE.plusSeconds(1));
		return this.clock.instant();
	}

	@Test
	void anExpiredLeaseMakesTheJobPendingAgainAndTheLostRunsOutcomeIsRefused() {
		long id = this.harness.queue.enqueue("render", 1);
		ClaimedJob job = claim("render", Set.of());
		Instant now = pastTheLease();

		assertThat(this.db.store().recoverExpiredLeases(now, 10)).isOne();

		JobDetail recovered = detail(id);
		assertThat(recovered.job().status()).isEqualTo(JobStatus.PENDING);
		assertThat(recovered.job().errorCode()).isEqualTo("LEASE_EXPIRED:WORKER_LOST");
		assertThat(recovered.errorDetail()).startsWith("Worker w1 stopped renewing its lease, which expired at ");
		assertThat(recovered.job().runAt()).isEqualTo(now);
		assertThat(recovered.job().finishedAt()).isNull();
		assertThat(recovered.leaseUntil()).isNull();
		assertThat(recovered.attempts()).singleElement().satisfies((attempt) -> {
			assertThat(attempt.outcome()).isEqualTo("LEASE_EXPIRED");
			assertThat(attempt.errorCode()).isEqualTo("LEASE_EXPIRED:WORKER_LOST");
			assertThat(attempt.finishedAt()).isEqualTo(now);
		});
		assertThat(recovered.events()).extracting(Event::event).endsWith("RECOVERED");
		assertThat(recovered.events()).last().extracting(Event::actor).isEqualTo("recovery");

		assertThat(this.db.store().complete(List.of(Completion.succeeded(job, "late")), "w1", now))
			.as("the lost run's outcome is fenced off")
			.containsExactly(false);
		assertThat(this.db.store()
			.renewLeases("w1", List.of(new RunningJobRef(job.id(), job.run(), false)), now, now.plus(LEASE))
			.lost()).containsExactly(id);
		assertThat(detail(id).job().status()).isEqualTo(JobStatus.PENDING);

		ClaimedJob again = claim("render", Set.of());
		assertThat(again.run()).isEqualTo(2);
		assertThat(again.attempt()).isEqualTo(2);
	}

	@Test
	void aLeaseNotYetExpiredIsLeftAlone() {
		long id = this.harness.queue.enqueue("render", 1);
		claim("render", Set.of());
		this.clock.advance(LEASE.minusSeconds(1));
		Instant now = this.clock.instant();

		assertThat(this.db.store().findExpiredLeases(now, 10)).isEmpty();
		assertThat(this.db.store().recoverExpiredLeases(now, 10)).isZero();
		assertThat(detail(id).job().status()).isEqualTo(JobStatus.RUNNING);
	}

	@Test
	void theLastAttemptFailsWhenItsLeaseExpires() {
		long id = this.harness.queue.enqueue(JobRequest.of("render", 1).maxAttempts(1));
		claim("render", Set.of());
		Instant now = pastTheLease();

		assertThat(this.db.store().recoverExpiredLeases(now, 10)).isOne();

		JobDetail failed = detail(id);
		assertThat(failed.job().status()).isEqualTo(JobStatus.FAILED);
		assertThat(failed.job().errorCode()).isEqualTo("LEASE_EXPIRED:MAX_ATTEMPTS");
		assertThat(failed.job().finishedAt()).isEqualTo(now);
		assertThat(failed.events()).extracting(Event::event).endsWith("FAILED");
	}

	@Test
	void aJobThatMustNotRunTwiceFailsWhenItsLeaseExpires() {
		long id = this.harness.queue.enqueue("charge", 1);
		claim("charge", Set.of("charge"));
		Instant now = pastTheLease();

		assertThat(this.db.store().recoverExpiredLeases(now, 10)).isOne();

		JobDetail failed = detail(id);
		assertThat(failed.job().status()).isEqualTo(JobStatus.FAILED);
		assertThat(failed.job().errorCode()).isEqualTo("LEASE_EXPIRED:NOT_REPEATABLE");
		assertThat(failed.job().finishedAt()).isEqualTo(now);
	}

	@Test
	void aJobWhoseCancelWasAskedForIsCancelledWhenItsLeaseExpires() {
		long id = this.harness.queue.enqueue("render", 1);
		claim("render", Set.of());
		assertThat(this.db.admin().cancel(id, this.clock.instant())).isTrue();
		Instant now = pastTheLease();

		assertThat(this.db.store().recoverExpiredLeases(now, 10)).isOne();

		JobDetail cancelled = detail(id);
		assertThat(cancelled.job().status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(cancelled.job().finishedAt()).isEqualTo(now);
		assertThat(cancelled.events()).extracting(Event::event).endsWith("CANCELLED");
	}

	@Test
	void aLeaseSeenExpiredIsRecoveredUnlessItWasRenewedSince() {
		long renewed = this.harness.queue.enqueue("render", 1);
		long lost = this.harness.queue.enqueue("render", 2);
		ClaimedJob first = claim("render", Set.of());
		ClaimedJob second = claim("render", Set.of());
		assertThat(List.of(first.id(), second.id())).containsExactlyInAnyOrder(renewed, lost);
		ClaimedJob renewedRun = (first.id() == renewed) ? first : second;
		Instant now = pastTheLease();

		List<ExpiredLease> seen = this.db.store().findExpiredLeases(now, 10);
		assertThat(seen).extracting(ExpiredLease::jobId).containsExactlyInAnyOrder(renewed, lost);
		assertThat(seen).allSatisfy((lease) -> assertThat(lease.leaseUntil()).isBefore(now));
		LeaseRenewal renewal = this.db.store()
			.renewLeases("w1", List.of(new RunningJobRef(renewed, renewedRun.run(), false)), now, now.plus(LEASE));
		assertThat(renewal.lost()).isEmpty();

		assertThat(this.db.store().recoverExpiredLeases(seen, now)).as("the renewal since wins").isOne();

		assertThat(detail(lost).job().status()).isEqualTo(JobStatus.PENDING);
		assertThat(detail(lost).attempts()).extracting(Attempt::outcome).containsExactly("LEASE_EXPIRED");
		assertThat(detail(renewed).job().status()).isEqualTo(JobStatus.RUNNING);
		assertThat(detail(renewed).leaseUntil()).isEqualTo(now.plus(LEASE));
		assertThat(this.db.store().recoverExpiredLeases(seen, now)).as("already recovered").isZero();
	}

	@Test
	void theSweepTakesBackNoMoreThanItsLimit() {
		for (int i = 0; i < 3; i++) {
			this.harness.queue.enqueue("render", i);
			claim("render", Set.of());
		}
		Instant now = pastTheLease();

		assertThat(this.db.store().recoverExpiredLeases(now, 2)).isEqualTo(2);
		assertThat(this.db.store().recoverExpiredLeases(now, 2)).isOne();
		assertThat(this.db.store().recoverExpiredLeases(now, 2)).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'pending'")).isEqualTo(3);
	}

}
