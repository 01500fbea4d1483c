package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.jobqueue.BulkRequest;
import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.FanOut;
import dev.jobqueue.JobFilter;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.ExpiredLease;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counts of jobs per type and status that a snapshot reports (the endpoint, the
 * dashboard's overview and the meters read them) equal what the jobs table holds, after
 * every kind of change to a finished job's existence or status, on every store: the
 * finished ones are kept as jobs finish rather than counted from the table, so each test
 * checks them against {@code count(*)} of the jobs after each step. Every way a job
 * finishes (a run's outcome, lease recovery, a cancel, a dependency's failure, an enqueue
 * after a job that failed), is retried, or is deleted (by hand, in bulk, by retention).
 */
public abstract class FinishedCountsTests extends StoreTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final SnapshotSettings SETTINGS = new SnapshotSettings(Duration.ofMinutes(15), 5,
			Duration.ofMinutes(3), 10);

	private Instant now() {
		return this.clock.instant();
	}

	/** After each test, whatever it did last: the counts still match the table. */
	@AfterEach
	void countsMatchTheJobsInTheEnd() {
		assertCountsMatchTheJobs("at the end of the test");
	}

	/**
	 * The snapshot's counts per type and status equal those of the jobs table, every
	 * status included.
	 */
	private void assertCountsMatchTheJobs(String after) {
		Map<String, Map<JobStatus, Long>> counted = new TreeMap<>();
		for (JobStatus status : JobStatus.values()) {
			for (Object type : this.db.column("SELECT type FROM jobs WHERE status = ?", status.dbValue())) {
				counted.computeIfAbsent((String) type, (key) -> new EnumMap<>(JobStatus.class))
					.merge(status, 1L, Long::sum);
			}
		}
		assertThat(new TreeMap<>(this.db.insights().snapshot(now(), SETTINGS).counts())).as("counts after " + after)
			.isEqualTo(counted);
	}

	private long enqueue(String type) {
		return this.harness.queue.enqueue(type, "{}");
	}

	private ClaimedJob claim(String type) {
		return claim(type, "w1", Set.of());
	}

	/** Claims the due job of {@code type} first in claim order. */
	private ClaimedJob claim(String type, String workerId, Set<String> notRepeatable) {
		List<ClaimedJob> claimed = this.db.store()
			.claim(new ClaimRequest(workerId, 1, Set.of(type), Map.of(), notRepeatable, now().plus(LEASE)), now());
		assertThat(claimed).as("a due '%s' job to claim", type).hasSize(1);
		return claimed.get(0);
	}

	private void complete(Completion completion) {
		assertThat(this.db.store().complete(List.of(completion), "w1", now())).containsExactly(true);
	}

	/** A job of {@code type} that ran once and failed for good. */
	private long failed(String type) {
		long id = enqueue(type);
		complete(Completion.failed(claim(type), "DEPENDENCY:API", "it broke"));
		return id;
	}

	private JobStatus status(long id) {
		return this.harness.queue.find(id).orElseThrow().status();
	}

	@Test
	void everyOutcomeOfARunIsCountedAsItEnds() {
		for (int i = 0; i < 8; i++) {
			enqueue((i % 2 == 0) ? "mail" : "report");
		}
		assertCountsMatchTheJobs("enqueues");

		ClaimedJob first = claim("mail");
		ClaimedJob second = claim("report");
		ClaimedJob third = claim("mail");
		assertThat(
				this.db.store()
					.complete(List.of(Completion.succeeded(first, "1"), Completion.succeeded(second, "2"),
							Completion.failed(third, "SMTP:REFUSED", "no")), "w1", now()))
			.containsExactly(true, true, true);
		assertCountsMatchTheJobs("a round of two successes and a failure");

		complete(Completion.retry(claim("mail"), "SMTP:BUSY", "later", now().plusSeconds(10)));
		assertCountsMatchTheJobs("a retry");
		complete(Completion.cancelled(claim("report")));
		assertCountsMatchTheJobs("a run that ended cancelled");

		ClaimedJob cancelRequested = claim("report");
		assertThat(this.harness.queue.cancel(cancelRequested.id())).isTrue();
		assertCountsMatchTheJobs("a cancel asked of a running job");
		complete(Completion.retry(cancelRequested, "DEPENDENCY:API", "failed", now().plusSeconds(10)));
		assertThat(status(cancelRequested.id())).isEqualTo(JobStatus.CANCELLED);
		assertCountsMatchTheJobs("a retry of a job whose cancel was asked for");

		ClaimedJob snoozedAfterCancel = claim("report");
		assertThat(this.harness.queue.cancel(snoozedAfterCancel.id())).isTrue();
		complete(Completion.snoozed(snoozedAfterCancel, now().plusSeconds(10)));
		assertCountsMatchTheJobs("a snooze of a job whose cancel was asked for");

		ClaimedJob running = claim("mail");
		assertThat(this.db.store()
			.completeAndClaim(List.of(Completion.succeeded(running, null), Completion.succeeded(first, "again")), "w1",
					new ClaimRequest("w1", 1, Set.of("mail"), Map.of(), Set.of(), now().plus(LEASE)), now())
			.applied()).containsExactly(true, false);
		assertCountsMatchTheJobs("an outcome and a claim in one transaction, and a stale outcome");
	}

	@Test
	void aRunTakenBackByLeaseRecoveryIsCountedWhenItEndsTheJob() {
		long lost = enqueue("render");
		long lastAttempt = this.harness.queue.enqueue(JobRequest.of("render", 2).maxAttempts(1));
		long notRepeatable = enqueue("charge");
		long cancelRequested = enqueue("render");
		claim("render");
		claim("render");
		claim("charge", "w1", Set.of("charge"));
		claim("render");
		assertThat(this.harness.queue.cancel(cancelRequested)).isTrue();
		this.clock.advance(LEASE.plusSeconds(1));

		assertThat(this.db.store().recoverExpiredLeases(now(), 2)).isEqualTo(2);
		assertCountsMatchTheJobs("a recovery of some of the runs");
		assertThat(this.db.store().recoverExpiredLeases(now(), 10)).isEqualTo(2);
		assertCountsMatchTheJobs("a recovery of the other runs");
		assertThat(status(lost)).isEqualTo(JobStatus.PENDING);
		assertThat(status(lastAttempt)).isEqualTo(JobStatus.FAILED);
		assertThat(status(notRepeatable)).isEqualTo(JobStatus.FAILED);
		assertThat(status(cancelRequested)).isEqualTo(JobStatus.CANCELLED);

		claim("render", "w2", Set.of());
		this.clock.advance(LEASE.plusSeconds(1));
		List<ExpiredLease> seen = this.db.store().findExpiredLeases(now(), 10);
		assertThat(seen).hasSize(1);
		assertThat(this.db.store().recoverExpiredLeases(seen, now())).isOne();
		assertCountsMatchTheJobs("a recovery of a lease seen expired");
	}

	@Test
	void cancelsAndTheSettleOfTheJobsWaitingForThemAreCounted() {
		long pending = enqueue("sync");
		long waitedFor = enqueue("sync");
		long cancelledWithIt = this.harness.queue.enqueue(JobRequest.of("notify", 1).after(waitedFor));
		long failedWithIt = this.harness.queue
			.enqueue(JobRequest.of("notify", 2).after(waitedFor).onDependencyFailure(DependencyPolicy.FAIL));
		long runsAnyway = this.harness.queue
			.enqueue(JobRequest.of("notify", 3).after(waitedFor).onDependencyFailure(DependencyPolicy.RUN));
		long secondInLine = this.harness.queue.enqueue(JobRequest.of("archive", 4).after(cancelledWithIt));
		assertCountsMatchTheJobs("enqueues of waiting jobs");

		assertThat(this.harness.queue.cancel(pending)).isTrue();
		assertCountsMatchTheJobs("a cancel of a pending job");
		assertThat(this.harness.queue.cancel(waitedFor)).isTrue();
		assertThat(status(cancelledWithIt)).isEqualTo(JobStatus.CANCELLED);
		assertThat(status(failedWithIt)).isEqualTo(JobStatus.FAILED);
		assertThat(status(runsAnyway)).isEqualTo(JobStatus.PENDING);
		assertThat(status(secondInLine)).isEqualTo(JobStatus.CANCELLED);
		assertCountsMatchTheJobs("a cancel that ended the jobs waiting for it, and theirs");

		long waiting = this.harness.queue.enqueue(JobRequest.of("notify", 5).after(runsAnyway));
		assertThat(this.harness.queue.cancel(waiting)).isTrue();
		assertCountsMatchTheJobs("a cancel of a waiting job");

		long blocker = enqueue("sync");
		long waitsForAFailure = this.harness.queue.enqueue(JobRequest.of("notify", 6).after(blocker));
		complete(Completion.failed(claim("sync"), "DEPENDENCY:API", "no"));
		assertThat(status(waitsForAFailure)).isEqualTo(JobStatus.CANCELLED);
		assertCountsMatchTheJobs("a failure that ended the job waiting for it");

		for (int i = 0; i < 3; i++) {
			enqueue("bulk");
		}
		claim("bulk");
		assertThat(this.harness.queue.bulk(BulkRequest.cancel(JobFilter.any().type("bulk"))).applied()).isEqualTo(3);
		assertCountsMatchTheJobs("a bulk cancel of pending and running jobs");
	}

	@Test
	void aCancelOfAChainIsCounted() {
		FanOut fanOut = this.harness.queue.enqueueFanOut(
				List.of(JobRequest.of("child", 1), JobRequest.of("child", 2), JobRequest.of("child", 3)),
				JobRequest.of("join", 0));
		long after = this.harness.queue.enqueue(JobRequest.of("after-chain", 0).after(fanOut.joinId()));
		complete(Completion.succeeded(claim("child"), null));
		claim("child");
		assertCountsMatchTheJobs("a chain with a step done and one running");

		assertThat(this.harness.queue.cancelChain(fanOut.chainId())).isEqualTo(3);
		assertThat(status(fanOut.joinId())).isEqualTo(JobStatus.CANCELLED);
		assertThat(status(after)).isEqualTo(JobStatus.CANCELLED);
		assertCountsMatchTheJobs("a cancel of the chain");
	}

	@Test
	void aJobEnqueuedAfterAJobThatFailedIsCountedFinishedFromTheStart() {
		long failed = failed("extract");
		this.harness.queue.enqueue(JobRequest.of("load", 1).after(failed));
		this.harness.queue.enqueue(JobRequest.of("load", 2).after(failed).onDependencyFailure(DependencyPolicy.FAIL));
		this.harness.queue.enqueue(JobRequest.of("load", 3).after(failed).onDependencyFailure(DependencyPolicy.RUN));
		assertCountsMatchTheJobs("enqueues after a failed job");

		this.harness.queue.enqueueAll(List.of(JobRequest.of("load", 4).after(failed),
				JobRequest.of("load", 5).dedupKey("load-5"), JobRequest.of("load", 6).after(failed)));
		assertCountsMatchTheJobs("an enqueueAll of waiting jobs and a job with a dedup key");

		ClaimedJob step = claim("extract-more", enqueue("extract-more"));
		NewJob next = new NewJob("publish", "{}", 0, now(), 3, null, null, List.of(failed), List.of(),
				DependencyPolicy.FAIL, 1);
		complete(Completion.succeeded(step, null).withNext(List.of(next)));
		assertThat(this.harness.queue.findChain(step.id())).extracting((job) -> job.status())
			.containsExactly(JobStatus.SUCCEEDED, JobStatus.FAILED);
		assertCountsMatchTheJobs("a continuation that waits for a failed job");
	}

	private ClaimedJob claim(String type, long expectedId) {
		ClaimedJob claimed = claim(type);
		assertThat(claimed.id()).isEqualTo(expectedId);
		return claimed;
	}

	@Test
	void aRetryTakesTheJobOutOfItsFinishedCount() {
		long failed = failed("mail");
		ClaimedJob cancelledRun = claim("mail", enqueue("mail"));
		complete(Completion.cancelled(cancelledRun));
		long succeeded = enqueue("mail");
		complete(Completion.succeeded(claim("mail"), null));
		assertCountsMatchTheJobs("a failure, a cancel and a success");

		assertThat(this.harness.queue.retry(failed)).isTrue();
		assertCountsMatchTheJobs("a retry of a failed job");
		assertThat(this.harness.queue.retry(cancelledRun.id())).isTrue();
		assertCountsMatchTheJobs("a retry of a cancelled job");
		assertThat(this.harness.queue.retry(succeeded)).as("a success is not retried").isFalse();
		assertThat(this.harness.queue.retry(failed)).as("a pending job is not retried").isFalse();
		assertCountsMatchTheJobs("retries that changed nothing");

		complete(Completion.failed(claim("mail"), "SMTP:REFUSED", "no"));
		complete(Completion.failed(claim("mail"), "SMTP:REFUSED", "no"));
		long cancelled = enqueue("report");
		this.harness.queue.cancel(cancelled);
		assertCountsMatchTheJobs("the retried jobs failed again");
		assertThat(this.harness.queue.bulk(BulkRequest.retry(JobFilter.any()).batchSize(1)).applied()).isEqualTo(3);
		assertCountsMatchTheJobs("a bulk retry of failed and cancelled jobs");
	}

	@Test
	void deletesTakeTheJobsOutOfTheirFinishedCounts() {
		for (int i = 0; i < 4; i++) {
			failed("report");
			enqueue("report");
			complete(Completion.succeeded(claim("report"), null));
		}
		long cancelled = enqueue("mail");
		this.harness.queue.cancel(cancelled);
		enqueue("report");
		assertCountsMatchTheJobs("finished and pending jobs");

		assertThat(this.harness.queue
			.bulk(BulkRequest.delete(JobFilter.any().status(JobStatus.FAILED).type("report")).batchSize(3))
			.applied()).isEqualTo(4);
		assertCountsMatchTheJobs("a bulk delete of failed jobs");
		assertThat(this.harness.queue.bulk(BulkRequest.delete(JobFilter.any())).applied()).isEqualTo(5);
		assertCountsMatchTheJobs("a bulk delete of every finished job");

		Instant cutoff = now().plusSeconds(1);
		for (int i = 0; i < 3; i++) {
			failed("cleanup");
		}
		assertThat(this.db.retention().deleteFinished(JobStatus.FAILED, "cleanup", cutoff, 2)).isEqualTo(2);
		assertCountsMatchTheJobs("retention's batch");
		assertThat(this.db.retention().deleteFinished(JobStatus.FAILED, "cleanup", cutoff, 2)).isOne();
		assertCountsMatchTheJobs("retention's last batch");

		FanOut fanOut = this.harness.queue.enqueueFanOut(List.of(JobRequest.of("child", 1), JobRequest.of("child", 2)),
				JobRequest.of("join", 0));
		complete(Completion.succeeded(claim("child"), null));
		complete(Completion.failed(claim("child"), "DEPENDENCY:API", "no"));
		assertThat(status(fanOut.joinId())).isEqualTo(JobStatus.CANCELLED);
		assertCountsMatchTheJobs("a chain that ended");
		this.clock.advance(Duration.ofSeconds(2));
		assertThat(this.db.retention()
			.deleteFinishedChains(
					Map.of(JobStatus.SUCCEEDED, now(), JobStatus.FAILED, now(), JobStatus.CANCELLED, now()), 10))
			.isEqualTo(3);
		assertCountsMatchTheJobs("retention's delete of the chain");
	}

	@Test
	void theCountsOfTwoProcessesAddUp() {
		for (int i = 0; i < 6; i++) {
			enqueue("mail");
		}
		try (StoreFixture other = this.db.anotherProcess()) {
			for (int i = 0; i < 3; i++) {
				List<ClaimedJob> mine = this.db.store()
					.claim(new ClaimRequest("w1", 1, Set.of("mail"), Map.of(), Set.of(), now().plus(LEASE)), now());
				List<ClaimedJob> theirs = other.store()
					.claim(new ClaimRequest("w2", 1, Set.of("mail"), Map.of(), Set.of(), now().plus(LEASE)), now());
				assertThat(this.db.store().complete(List.of(Completion.succeeded(mine.get(0), null)), "w1", now()))
					.containsExactly(true);
				assertThat(other.store()
					.complete(List.of((i == 0) ? Completion.failed(theirs.get(0), "SMTP:REFUSED", "no")
							: Completion.succeeded(theirs.get(0), null)), "w2", now()))
					.containsExactly(true);
			}
			assertThat(other.admin()
				.retry(this.db.column("SELECT id FROM jobs WHERE status = 'failed'")
					.stream()
					.map((id) -> ((Number) id).longValue())
					.findFirst()
					.orElseThrow(), now()))
				.isTrue();
		}
		assertCountsMatchTheJobs("successes and a failure of two processes, and a retry of the other's failure");
	}

}
