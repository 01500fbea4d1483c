package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.DefaultJobQueueMaintenance;
import dev.jobqueue.core.retention.JobQueueMaintenance;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.store.WorkerInfo;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.StoreTests;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Retention on every store: the {@link RetentionCleaner} on the store's
 * {@link RetentionStore} deletes finished jobs past the age of their status (and type),
 * in batches, with their attempts and events; one process cleans at a time; a run stops
 * between batches; rows of silent workers go. Finished jobs are made by the store's own
 * statements at instants the test chooses. Chains are {@link RetentionChainTests}.
 */
public abstract class RetentionTests extends StoreTests {

	private static final Duration DAY = Duration.ofDays(1);

	/**
	 * succeeded 30d, failed 90d, cancelled 30d; type report 7d whatever its status; type
	 * audit kept forever.
	 */
	private static final RetentionPolicy POLICY = RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(90),
			Duration.ofDays(30), Map.of("report", Duration.ofDays(7), "audit", Duration.ofMillis(-1)));

	private Instant now() {
		return this.clock.instant();
	}

	/**
	 * Jobs of {@code type} that ran once and ended in {@code status} at
	 * {@code finishedAt}, each with its attempt and events as a worker leaves them; a
	 * running status leaves them running, a pending one never claimed.
	 * @return their ids, which follow one another
	 */
	private List<Long> jobs(JobStatus status, String type, int count, Instant finishedAt) {
		Instant createdAt = finishedAt.minus(Duration.ofMinutes(1));
		List<NewJob> jobs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			jobs.add(new NewJob(type, "{\"n\":" + i + "}", 0, createdAt, 3, null, null));
		}
		List<Long> ids = this.db.store().enqueue(jobs, createdAt, () -> {
		});
		assertThat(ids.get(count - 1) - ids.get(0)).isEqualTo(count - 1);
		if (status == JobStatus.PENDING) {
			return ids;
		}
		Instant claimedAt = finishedAt.minusSeconds(1);
		List<ClaimedJob> claimed = this.db.store()
			.claim(new ClaimRequest("w1", count, Set.of(type), Map.of(), Set.of(), finishedAt.plus(DAY)), claimedAt);
		assertThat(claimed).extracting(ClaimedJob::id).containsExactlyElementsOf(ids);
		if (status != JobStatus.RUNNING) {
			List<Completion> outcomes = claimed.stream().map((job) -> switch (status) {
				case SUCCEEDED -> Completion.succeeded(job, "\"ok\"");
				case FAILED -> Completion.failed(job, "DEPENDENCY:GEOCODER", "geocoder answered 503");
				default -> Completion.cancelled(job);
			}).toList();
			assertThat(this.db.store().complete(outcomes, "w1", finishedAt)).containsOnly(true);
		}
		return ids;
	}

	private List<Long> expired(JobStatus status, String type, int count) {
		return jobs(status, type, count, now().minus(Duration.ofDays(400)));
	}

	/** How many of {@code ids} (which follow one another) are left. */
	private long left(List<Long> ids) {
		return this.db.count("SELECT count(*) FROM jobs WHERE id BETWEEN ? AND ?", ids.get(0), ids.get(ids.size() - 1));
	}

	/** Attempts and events whose job is gone: always 0. */
	private long orphans() {
		return this.db.count("SELECT count(*) FROM job_attempts WHERE job_id NOT IN (SELECT id FROM jobs)")
				+ this.db.count("SELECT count(*) FROM job_events WHERE job_id NOT IN (SELECT id FROM jobs)");
	}

	private RetentionCleaner cleaner(RetentionPolicy policy, int batchSize) {
		return cleaner(this.db.retention(), policy, batchSize, "test-cleaner");
	}

	private RetentionCleaner cleaner(RetentionStore store, RetentionPolicy policy, int batchSize, String owner) {
		return new RetentionCleaner(store, this.db.fileMaintenance().orElse(null),
				RetentionSettings.of(policy, batchSize).withBatchPause(0), this.clock, owner, () -> true);
	}

	record Group(JobStatus status, String type, Duration age, int count, boolean expires) {
	}

	@Test
	void oneRunDeletesExactlyTheJobsPastTheAgeOfTheirStatusAndTypeWithTheirAttemptsAndEvents() {
		List<Group> groups = List.of(new Group(JobStatus.SUCCEEDED, "thumbnail", DAY, 3, false),
				new Group(JobStatus.SUCCEEDED, "thumbnail", DAY.multipliedBy(29), 3, false),
				new Group(JobStatus.SUCCEEDED, "thumbnail", DAY.multipliedBy(30), 1, false),
				new Group(JobStatus.SUCCEEDED, "thumbnail", DAY.multipliedBy(31), 3, true),
				new Group(JobStatus.SUCCEEDED, "thumbnail", DAY.multipliedBy(400), 4, true),
				new Group(JobStatus.FAILED, "thumbnail", DAY.multipliedBy(31), 3, false),
				new Group(JobStatus.FAILED, "thumbnail", DAY.multipliedBy(89), 3, false),
				new Group(JobStatus.FAILED, "thumbnail", DAY.multipliedBy(91), 5, true),
				new Group(JobStatus.FAILED, "thumbnail", DAY.multipliedBy(400), 3, true),
				new Group(JobStatus.CANCELLED, "thumbnail", DAY.multipliedBy(29), 3, false),
				new Group(JobStatus.CANCELLED, "thumbnail", DAY.multipliedBy(31), 6, true),
				new Group(JobStatus.SUCCEEDED, "report", DAY.multipliedBy(6), 3, false),
				new Group(JobStatus.SUCCEEDED, "report", DAY.multipliedBy(8), 3, true),
				new Group(JobStatus.FAILED, "report", DAY.multipliedBy(8), 2, true),
				new Group(JobStatus.SUCCEEDED, "audit", DAY.multipliedBy(400), 3, false),
				new Group(JobStatus.FAILED, "audit", DAY.multipliedBy(400), 3, false),
				new Group(JobStatus.RUNNING, "thumbnail", DAY.multipliedBy(400), 3, false),
				new Group(JobStatus.PENDING, "thumbnail", DAY.multipliedBy(400), 3, false));
		long[] workerJobs = runJobsThroughAWorker();
		this.clock.advance(Duration.ofDays(31));
		List<List<Long>> ids = new ArrayList<>();
		for (Group group : groups) {
			ids.add(jobs(group.status(), group.type(), group.count(), now().minus(group.age())));
		}

		RetentionReport report = cleaner(POLICY, 2).purgeOnce();

		assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		for (int i = 0; i < groups.size(); i++) {
			Group group = groups.get(i);
			assertThat(left(ids.get(i))).as("%s", group).isEqualTo(group.expires() ? 0 : group.count());
		}
		// Run by a worker 31 days ago: the success is past 30 days, the failure within
		// 90.
		assertThat(this.harness.queue.find(workerJobs[0])).isEmpty();
		assertThat(this.harness.queue.find(workerJobs[1])).isPresent();
		assertThat(report.deleted(JobStatus.SUCCEEDED)).isEqualTo(3 + 4 + 3 + 1);
		assertThat(report.deleted(JobStatus.FAILED)).isEqualTo(5 + 3 + 2);
		assertThat(report.deleted(JobStatus.CANCELLED)).isEqualTo(6);
		assertThat(report.batches()).isGreaterThanOrEqualTo(14);
		assertThat(orphans()).isZero();
		long finishedLeft = this.db.count("SELECT count(*) FROM jobs WHERE finished_at IS NOT NULL");
		assertThat(finishedLeft).isEqualTo(3 + 3 + 1 + 3 + 3 + 3 + 3 + 3 + 3 + 1);
		// Each finished job ran once (ENQUEUED, CLAIMED, its end); running ones have no
		// end yet, pending ones were never claimed.
		assertThat(this.db.count("SELECT count(*) FROM job_attempts")).isEqualTo(finishedLeft + 3);
		assertThat(this.db.count("SELECT count(*) FROM job_events")).isEqualTo(3 * finishedLeft + 2 * 3 + 3);
	}

	/**
	 * @return ids of a job that succeeded and one that failed, both with attempts and
	 * events
	 */
	private long[] runJobsThroughAWorker() {
		WorkerHarness worker = new WorkerHarness(this.db, this.clock);
		worker.handle(HandlerDefinition.of("greet", (payload, context) -> "hi"));
		worker.handle(HandlerDefinition.of("broken", (payload, context) -> {
			throw new IllegalStateException("always");
		}));
		long succeeded = worker.queue.enqueue("greet", "ada");
		long failed = worker.queue.enqueue(JobRequest.of("broken", "x").maxAttempts(1));
		worker.directWorker("w1").pollOnce();
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE job_id IN (?, ?)", succeeded, failed))
			.isEqualTo(6);
		return new long[] { succeeded, failed };
	}

	@Test
	void aBatchDeletesAtMostItsLimitOfOneStatusAndTypeFinishedBeforeTheCutoff() {
		RetentionStore retention = this.db.retention();
		Instant cutoff = now().minus(DAY);
		List<Long> old = jobs(JobStatus.SUCCEEDED, "a", 5, now().minus(DAY.multipliedBy(2)));
		List<Long> recent = jobs(JobStatus.SUCCEEDED, "a", 2, cutoff);
		List<Long> otherType = jobs(JobStatus.SUCCEEDED, "b", 2, now().minus(DAY.multipliedBy(2)));
		List<Long> otherStatus = jobs(JobStatus.FAILED, "a", 2, now().minus(DAY.multipliedBy(2)));

		assertThat(retention.deleteFinished(JobStatus.SUCCEEDED, "a", cutoff, 3)).isEqualTo(3);
		assertThat(retention.deleteFinished(JobStatus.SUCCEEDED, "a", cutoff, 3)).isEqualTo(2);
		assertThat(retention.deleteFinished(JobStatus.SUCCEEDED, "a", cutoff, 3)).isZero();

		assertThat(left(old)).isZero();
		assertThat(left(recent)).as("finished at the cutoff, not before it").isEqualTo(2);
		assertThat(left(otherType)).isEqualTo(2);
		assertThat(left(otherStatus)).isEqualTo(2);
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE job_id BETWEEN ? AND ?", old.get(0),
				old.get(old.size() - 1)))
			.isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_attempts WHERE job_id BETWEEN ? AND ?", old.get(0),
				old.get(old.size() - 1)))
			.isZero();
		assertThat(orphans()).isZero();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> retention.deleteFinished(JobStatus.PENDING, "a", cutoff, 3));
	}

	@Test
	void aRunDeletesInBatchesOfTheConfiguredSizeUntilNoneIsLeft() {
		expired(JobStatus.SUCCEEDED, "thumbnail", 23);

		RetentionReport report = cleaner(POLICY, 5).purgeOnce();

		assertThat(report.deleted(JobStatus.SUCCEEDED)).isEqualTo(23);
		assertThat(report.batches()).isEqualTo(5);
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_events")).isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_attempts")).isZero();
	}

	@Test
	void theTypesOfAStatusAreThoseWithFinishedJobsInIt() {
		for (String type : List.of("b", "a", "c", "a")) {
			jobs(JobStatus.SUCCEEDED, type, 2, now());
		}
		jobs(JobStatus.PENDING, "z", 2, now());
		jobs(JobStatus.RUNNING, "y", 1, now());

		assertThat(this.db.retention().finishedTypes(JobStatus.SUCCEEDED)).containsExactly("a", "b", "c");
		assertThat(this.db.retention().finishedTypes(JobStatus.FAILED)).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> this.db.retention().finishedTypes(JobStatus.RUNNING));
	}

	@Test
	void keepsEverythingWhenEveryRetentionIsSwitchedOff() {
		expired(JobStatus.SUCCEEDED, "thumbnail", 3);
		jobs(JobStatus.FAILED, "thumbnail", 3, now().minus(Duration.ofDays(3650)));
		RetentionPolicy off = RetentionPolicy.of(Duration.ZERO, Duration.ofDays(-1), null, Map.of());

		RetentionReport report = cleaner(off, 100).purgeOnce();

		assertThat(off.deletesAnything()).isFalse();
		assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		assertThat(report.totalDeleted()).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(6);
	}

	@Test
	void theLeaseGoesToOneOwnerUntilItExpiresOrIsReleased() {
		try (StoreFixture prefixed = createFixture(this.dir.resolve("prefixed"), "jq_")) {
			RetentionStore store = prefixed.retention();
			Instant now = now();
			Instant until = now.plusSeconds(60);
			assertThat(store.acquireLease("retention", "a", now, until)).isTrue();
			assertThat(store.acquireLease("retention", "b", now.plusSeconds(59), until)).isFalse();
			assertThat(store.acquireLease("retention", "a", now.plusSeconds(30), now.plusSeconds(90))).isTrue();
			assertThat(store.acquireLease("retention", "b", now.plusSeconds(60), now.plusSeconds(120))).isFalse();
			assertThat(store.acquireLease("other-task", "b", now, until)).isTrue();
			store.releaseLease("retention", "b");
			assertThat(store.acquireLease("retention", "b", now.plusSeconds(89), now.plusSeconds(120))).isFalse();
			assertThat(store.acquireLease("retention", "b", now.plusSeconds(90), now.plusSeconds(150))).isTrue();
			store.releaseLease("retention", "b");
			assertThat(store.acquireLease("retention", "a", now.plusSeconds(91), now.plusSeconds(150))).isTrue();
			assertThat(prefixed.count("SELECT count(*) FROM jq_job_housekeeping")).isEqualTo(2);
		}
		assertThat(this.db.count("SELECT count(*) FROM job_housekeeping")).isZero();
	}

	@Test
	void aRunSkipsWhileAnotherProcessHoldsTheLeaseAndTakesOverOnceItExpires() {
		expired(JobStatus.SUCCEEDED, "thumbnail", 10);
		Instant now = now();
		assertThat(this.db.retention()
			.acquireLease(RetentionCleaner.LEASE_TASK, "other-process", now, now.plus(Duration.ofMinutes(2)))).isTrue();
		RetentionCleaner cleaner = cleaner(POLICY, 100);

		RetentionReport skipped = cleaner.purgeOnce();

		assertThat(skipped.outcome()).isEqualTo(RetentionReport.Outcome.SKIPPED);
		assertThat(skipped.detail()).contains("another process");
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(10);

		this.clock.advance(Duration.ofMinutes(2));
		RetentionReport completed = cleaner.purgeOnce();

		assertThat(completed.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		assertThat(completed.totalDeleted()).isEqualTo(10);
		assertThat(cleaner.lastReport()).contains(completed);
		assertThat(this.db.retention()
			.acquireLease(RetentionCleaner.LEASE_TASK, "other-process", now(), now().plusSeconds(1)))
			.as("released at the end of the run")
			.isTrue();
	}

	@Test
	void ofTwoProcessesCleaningAtOnceOneCleansAndTheOtherSkips() {
		expired(JobStatus.SUCCEEDED, "thumbnail", 50);
		try (StoreFixture otherProcess = this.db.anotherProcess()) {
			RetentionCleaner first = cleaner(this.db.retention(), POLICY, 10, "first");
			RetentionCleaner second = cleaner(otherProcess.retention(), POLICY, 10, "second");
			AtomicReference<RetentionReport> secondRun = new AtomicReference<>();

			// The second runs between two batches of the first, while the first holds the
			// lease.
			RetentionReport firstRun = first.purgeOnce(() -> {
				if (secondRun.get() == null && this.db.count("SELECT count(*) FROM jobs") < 50) {
					secondRun.set(second.purgeOnce());
				}
				return false;
			});

			assertThat(secondRun.get().outcome()).isEqualTo(RetentionReport.Outcome.SKIPPED);
			assertThat(secondRun.get().totalDeleted()).isZero();
			assertThat(firstRun.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
			assertThat(firstRun.totalDeleted()).isEqualTo(50);
			RetentionReport afterwards = second.purgeOnce();
			assertThat(afterwards.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
			assertThat(afterwards.totalDeleted()).isZero();
		}
	}

	@Test
	void aRunStopsBetweenBatchesWhenAskedAndTheNextRunDeletesTheRest() {
		expired(JobStatus.SUCCEEDED, "thumbnail", 30);
		RetentionCleaner cleaner = cleaner(POLICY, 10);

		// Asked to stop once a batch is done.
		RetentionReport stopped = cleaner.purgeOnce(() -> this.db.count("SELECT count(*) FROM jobs") < 30);

		assertThat(stopped.outcome()).isEqualTo(RetentionReport.Outcome.STOPPED);
		assertThat(stopped.totalDeleted()).isEqualTo(10);
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(20);
		assertThat(orphans()).isZero();
		Instant now = now();
		assertThat(
				this.db.retention().acquireLease(RetentionCleaner.LEASE_TASK, "someone-else", now, now.plusSeconds(1)))
			.as("lease released on stop")
			.isTrue();
		this.db.retention().releaseLease(RetentionCleaner.LEASE_TASK, "someone-else");

		RetentionReport next = cleaner.purgeOnce();

		assertThat(next.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		assertThat(next.totalDeleted()).isEqualTo(20);
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
	}

	@Test
	void anInterruptStopsTheRunAndStaysSet() {
		expired(JobStatus.SUCCEEDED, "thumbnail", 5);
		Thread.currentThread().interrupt();
		RetentionReport report;
		try {
			report = cleaner(POLICY, 10).purgeOnce();
		}
		finally {
			assertThat(Thread.interrupted()).isTrue();
		}
		assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.STOPPED);
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(5);
	}

	@Test
	void anOperatorPurgesAStatusByAgeWhateverThePolicySays() {
		List<Long> old = jobs(JobStatus.FAILED, "thumbnail", 4, now().minus(Duration.ofDays(20)));
		List<Long> young = jobs(JobStatus.FAILED, "thumbnail", 2, now().minus(Duration.ofDays(5)));
		List<Long> keptForever = jobs(JobStatus.FAILED, "audit", 3, now().minus(Duration.ofDays(20)));
		List<Long> succeeded = jobs(JobStatus.SUCCEEDED, "thumbnail", 2, now().minus(Duration.ofDays(20)));
		RetentionCleaner cleaner = cleaner(POLICY, 2);
		JobQueueMaintenance maintenance = new DefaultJobQueueMaintenance(cleaner, this.db.retention());

		RetentionReport report = maintenance.purge(JobStatus.FAILED, Duration.ofDays(10));

		assertThat(report.deleted()).containsOnly(Map.entry(JobStatus.FAILED, 7L));
		assertThat(left(old)).isZero();
		assertThat(left(keptForever)).isZero();
		assertThat(left(young)).isEqualTo(2);
		assertThat(left(succeeded)).isEqualTo(2);
		assertThat(orphans()).isZero();
		assertThat(maintenance.lastRetentionReport()).contains(report);
		assertThatIllegalArgumentException().isThrownBy(() -> maintenance.purge(JobStatus.PENDING, Duration.ZERO))
			.withMessageContaining("Only finished jobs can be purged");
		assertThatIllegalArgumentException().isThrownBy(() -> maintenance.purge(JobStatus.FAILED, Duration.ofDays(-1)))
			.withMessageContaining("zero or positive");
	}

	@Test
	void theRowsOfWorkersSilentForLongerThanTheSettingSayAreDeleted() {
		WorkerInfo dead = new WorkerInfo("w-dead", "host-1", 41, Set.of("mail"), 4);
		WorkerInfo alive = new WorkerInfo("w-alive", "host-1", 42, Set.of("mail"), 4);
		this.db.store().registerWorker(dead, now());
		this.db.store().registerWorker(alive, now());
		this.clock.advance(Duration.ofMinutes(31));
		this.db.store().registerWorker(alive, now());
		RetentionSettings keepingWorkers = RetentionSettings.of(POLICY, 10).withWorkerRowsKeptFor(null);

		new RetentionCleaner(this.db.retention(), this.db.fileMaintenance().orElse(null), keepingWorkers, this.clock,
				"me", () -> true)
			.purgeOnce();
		assertThat(this.db.count("SELECT count(*) FROM job_workers")).isEqualTo(2);

		RetentionReport report = cleaner(RetentionPolicy.of(null, null, null, Map.of()), 10).purgeOnce();

		assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		assertThat(this.db.column("SELECT worker_id FROM job_workers")).containsExactly("w-alive");
		this.clock.advance(Duration.ofMinutes(31));
		assertThat(this.db.retention().deleteSilentWorkers(now().minus(Duration.ofMinutes(30)))).isOne();
		assertThat(this.db.retention().deleteSilentWorkers(now().minus(Duration.ofMinutes(30)))).isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_workers")).isZero();
	}

	@Test
	void perMinuteOutcomeCountsGoOnceOlderThanTheLongestRetentionOfFinishedJobs() {
		// succeeded 2d, failed 5d, cancelled 1d: counts older than five days go, a day at
		// a time; the jobs of the policy go with their own retention.
		RetentionPolicy policy = RetentionPolicy.of(Duration.ofDays(2), Duration.ofDays(5), Duration.ofDays(1), null);
		jobs(JobStatus.SUCCEEDED, "mail", 2, now().minus(Duration.ofDays(12)));
		jobs(JobStatus.FAILED, "mail", 1, now().minus(Duration.ofDays(5)).minus(Duration.ofMinutes(1)));
		jobs(JobStatus.FAILED, "mail", 1, now().minus(Duration.ofDays(5)).plus(Duration.ofMinutes(1)));
		jobs(JobStatus.SUCCEEDED, "mail", 3, now().minus(Duration.ofHours(1)));
		Duration twoWeeks = Duration.ofDays(14);
		assertThat(total(twoWeeks)).isEqualTo(7);

		cleaner(policy, 100).purgeOnce();

		assertThat(total(twoWeeks)).as("the runs of the last five days").isEqualTo(4);
		assertThat(this.db.count("SELECT count(*) FROM job_outcome_minutes")).isEqualTo(2);
	}

	@Test
	void perMinuteOutcomeCountsAreKeptForeverWhileSomeFinishedJobsAreAndADayAtLeast() {
		jobs(JobStatus.SUCCEEDED, "mail", 1, now().minus(Duration.ofDays(400)));
		jobs(JobStatus.SUCCEEDED, "mail", 1, now().minus(Duration.ofHours(20)));
		cleaner(POLICY, 100).purgeOnce();
		assertThat(total(Duration.ofDays(500))).as("type audit is kept forever").isEqualTo(2);

		cleaner(RetentionPolicy.of(Duration.ofHours(1), Duration.ofHours(1), Duration.ofHours(1), null), 100)
			.purgeOnce();
		assertThat(total(Duration.ofDays(500))).as("the dashboard's last day").isEqualTo(1);
	}

	/** Runs ended over the last {@code period}, as the dashboard counts them. */
	private long total(Duration period) {
		return this.db.insights()
			.outcomes(now().minus(period), now().plusSeconds(60), period.plusMinutes(1))
			.stream()
			.mapToLong(QueueInsights.Outcomes::total)
			.sum();
	}

}
