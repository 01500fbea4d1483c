package dev.jobqueue.core;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.DefaultJobQueueMaintenance;
import dev.jobqueue.core.retention.JobQueueMaintenance;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteRetentionStore;
import dev.jobqueue.testing.DelegatingRetentionStore;
import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static dev.jobqueue.testing.RetentionFixtures.orphans;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RetentionCleanerTests {

	private static final Duration DAY = Duration.ofDays(1);

	/**
	 * succeeded 30d, failed 90d, cancelled 30d; type report 7d whatever its status; type
	 * audit kept forever.
	 */
	private static final RetentionPolicy POLICY = RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(90),
			Duration.ofDays(30), Map.of("report", Duration.ofDays(7), "audit", Duration.ofMillis(-1)));

	@TempDir
	Path dir;

	TestDatabase db;

	MutableClock clock = MutableClock.startingAt("2026-06-01T00:00:00Z");

	RetentionStore store;

	@BeforeEach
	void setUp() {
		this.db = TestDatabase.create(this.dir);
		this.store = new SqliteRetentionStore(this.db.database(), SqliteDialect.tables(""));
	}

	@AfterEach
	void tearDown() {
		this.db.close();
	}

	record Group(JobStatus status, String type, Duration age, int count, boolean expires) {
	}

	@Test
	void oneCleanupRemovesExactlyTheExpiredJobsWithTheirAttemptsAndEventsAndKeepsTheRest() {
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
				new Group(JobStatus.PENDING, "thumbnail", DAY.multipliedBy(400), 3, false),
				new Group(JobStatus.RUNNING, "thumbnail", DAY.multipliedBy(400), 3, false));
		long[] workerJobs = runJobsThroughAWorker();
		this.clock.advance(Duration.ofDays(31));
		for (Group group : groups) {
			JobRows.insert(this.db.dataSource(), "", group.count(), group.type(), group.status(),
					this.clock.instant().minus(group.age()), Duration.ofMillis(1));
		}

		RetentionReport report = cleaner(POLICY, 2).purgeOnce();

		assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		for (Group group : groups) {
			long left = group.status().isFinal()
					? this.db.count(
							"SELECT count(*) FROM jobs WHERE status = ? AND type = ? AND finished_at >= ? "
									+ "AND finished_at < ?",
							group.status().dbValue(), group.type(),
							this.clock.instant().minus(group.age()).toEpochMilli(),
							this.clock.instant().minus(group.age()).toEpochMilli() + group.count())
					: this.db.count("SELECT count(*) FROM jobs WHERE status = ?", group.status().dbValue());
			assertThat(left).as("%s", group).isEqualTo(group.expires() ? 0 : group.count());
		}
		// Run by a worker 31 days ago: the succeeded one is past 30 days, the failed one
		// within 90.
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE id = ?", workerJobs[0])).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE id = ?", workerJobs[1])).isOne();
		assertThat(report.deleted(JobStatus.SUCCEEDED)).isEqualTo(3 + 4 + 3 + 1);
		assertThat(report.deleted(JobStatus.FAILED)).isEqualTo(5 + 3 + 2);
		assertThat(report.deleted(JobStatus.CANCELLED)).isEqualTo(6);
		assertThat(report.batches()).isGreaterThanOrEqualTo(14);
		assertThat(orphans(this.db)).isZero();
		long finishedLeft = this.db.count("SELECT count(*) FROM jobs WHERE finished_at IS NOT NULL");
		assertThat(this.db.count("SELECT count(*) FROM job_attempts")).isEqualTo(finishedLeft);
		assertThat(this.db.count("SELECT count(*) FROM job_events")).isEqualTo(3 * finishedLeft + 3 + 2 * 3);
	}

	/**
	 * @return ids of a job that succeeded and one that failed, both with attempts and
	 * events
	 */
	private long[] runJobsThroughAWorker() {
		WorkerHarness harness = new WorkerHarness(this.db, this.clock);
		harness.handle(HandlerDefinition.of("greet", (payload, context) -> "hi"));
		harness.handle(HandlerDefinition.of("broken", (payload, context) -> {
			throw new IllegalStateException("always");
		}));
		long succeeded = harness.queue.enqueue("greet", "ada");
		long failed = harness.queue.enqueue(JobRequest.of("broken", "x").maxAttempts(1));
		harness.directWorker("w1").pollOnce();
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE job_id IN (?, ?)", succeeded, failed))
			.isEqualTo(6);
		return new long[] { succeeded, failed };
	}

	@Test
	void deletesInBatchesOfTheConfiguredSize() {
		insertExpired(JobStatus.SUCCEEDED, "thumbnail", 23);

		RetentionReport report = cleaner(POLICY, 5).purgeOnce();

		assertThat(report.deleted(JobStatus.SUCCEEDED)).isEqualTo(23);
		assertThat(report.batches()).isEqualTo(5);
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
		assertThat(orphans(this.db)).isZero();
	}

	@Test
	void keepsEverythingWhenEveryRetentionIsSwitchedOff() {
		insertExpired(JobStatus.SUCCEEDED, "thumbnail", 3);
		JobRows.insert(this.db.dataSource(), "", 3, "thumbnail", JobStatus.FAILED,
				this.clock.instant().minus(Duration.ofDays(3650)), Duration.ofMillis(1));
		RetentionPolicy off = RetentionPolicy.of(Duration.ZERO, Duration.ofDays(-1), null, Map.of());

		RetentionReport report = cleaner(off, 100).purgeOnce();

		assertThat(off.deletesAnything()).isFalse();
		assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		assertThat(report.totalDeleted()).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(6);
	}

	@Test
	void skipsWhileAnotherProcessHoldsTheLeaseAndTakesOverOnceItExpires() {
		insertExpired(JobStatus.SUCCEEDED, "thumbnail", 10);
		Instant now = this.clock.instant();
		assertThat(this.store.acquireLease(RetentionCleaner.LEASE_TASK, "other-process", now,
				now.plus(Duration.ofMinutes(2))))
			.isTrue();
		RetentionCleaner cleaner = cleaner(POLICY, 100);

		RetentionReport skipped = cleaner.purgeOnce();

		assertThat(skipped.outcome()).isEqualTo(RetentionReport.Outcome.SKIPPED);
		assertThat(skipped.detail()).contains("another process");
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(10);

		this.clock.advance(Duration.ofMinutes(2));
		RetentionReport completed = cleaner.purgeOnce();

		assertThat(completed.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		assertThat(completed.totalDeleted()).isEqualTo(10);
		assertThat(this.db.column("SELECT lease_until FROM job_housekeeping WHERE name = 'retention'"))
			.containsExactly(0);
		assertThat(cleaner.lastReport()).contains(completed);
	}

	@Test
	void twoCleanersOnOneFileNeverCleanAtTheSameTime() throws Exception {
		insertExpired(JobStatus.SUCCEEDED, "thumbnail", 50);
		CountDownLatch firstBatchStarted = new CountDownLatch(1);
		CountDownLatch goOn = new CountDownLatch(1);
		RetentionStore pausing = new DelegatingRetentionStore(this.store) {
			@Override
			public int deleteFinished(JobStatus status, String type, Instant finishedBefore, int limit) {
				firstBatchStarted.countDown();
				await(goOn);
				return super.deleteFinished(status, type, finishedBefore, limit);
			}
		};
		RetentionCleaner first = new RetentionCleaner(pausing, RetentionSettings.of(POLICY, 10), this.clock, "first",
				() -> true);
		RetentionCleaner second = cleaner(POLICY, 10);

		CompletableFuture<RetentionReport> firstRun = CompletableFuture.supplyAsync(first::purgeOnce);
		assertThat(firstBatchStarted.await(10, TimeUnit.SECONDS)).isTrue();
		RetentionReport secondRun = second.purgeOnce();
		goOn.countDown();

		assertThat(secondRun.outcome()).isEqualTo(RetentionReport.Outcome.SKIPPED);
		assertThat(secondRun.totalDeleted()).isZero();
		assertThat(firstRun.get(30, TimeUnit.SECONDS).totalDeleted()).isEqualTo(50);
		RetentionReport afterwards = second.purgeOnce();
		assertThat(afterwards.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		assertThat(afterwards.totalDeleted()).isZero();
	}

	@Test
	void stopsBetweenBatchesWhenAskedAndTheNextRunDeletesTheRest() {
		insertExpired(JobStatus.SUCCEEDED, "thumbnail", 30);
		AtomicInteger checks = new AtomicInteger();
		RetentionCleaner cleaner = cleaner(POLICY, 10);

		RetentionReport stopped = cleaner.purgeOnce(() -> checks.incrementAndGet() > 2);

		assertThat(stopped.outcome()).isEqualTo(RetentionReport.Outcome.STOPPED);
		assertThat(stopped.totalDeleted()).isEqualTo(10);
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(20);
		assertThat(orphans(this.db)).isZero();
		Instant now = this.clock.instant();
		assertThat(this.store.acquireLease(RetentionCleaner.LEASE_TASK, "someone-else", now, now.plusSeconds(1)))
			.as("lease released on stop")
			.isTrue();
		this.store.releaseLease(RetentionCleaner.LEASE_TASK, "someone-else");

		RetentionReport next = cleaner.purgeOnce();

		assertThat(next.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		assertThat(next.totalDeleted()).isEqualTo(20);
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
	}

	@Test
	void anInterruptStopsTheRunAndStaysSet() {
		insertExpired(JobStatus.SUCCEEDED, "thumbnail", 5);
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
	void operatorPurgesAStatusByAgeWhateverThePolicySays() {
		JobRows.insert(this.db.dataSource(), "", 4, "thumbnail", JobStatus.FAILED,
				this.clock.instant().minus(Duration.ofDays(20)), Duration.ofMillis(1));
		JobRows.insert(this.db.dataSource(), "", 2, "thumbnail", JobStatus.FAILED,
				this.clock.instant().minus(Duration.ofDays(5)), Duration.ofMillis(1));
		JobRows.insert(this.db.dataSource(), "", 3, "audit", JobStatus.FAILED,
				this.clock.instant().minus(Duration.ofDays(20)), Duration.ofMillis(1));
		JobRows.insert(this.db.dataSource(), "", 2, "thumbnail", JobStatus.SUCCEEDED,
				this.clock.instant().minus(Duration.ofDays(20)), Duration.ofMillis(1));
		RetentionCleaner cleaner = cleaner(POLICY, 2);
		JobQueueMaintenance maintenance = new DefaultJobQueueMaintenance(cleaner, this.store);

		RetentionReport report = maintenance.purge(JobStatus.FAILED, Duration.ofDays(10));

		assertThat(report.deleted()).containsOnly(Map.entry(JobStatus.FAILED, 7L));
		assertThat(this.db.column("SELECT status || ':' || type FROM jobs ORDER BY id"))
			.containsExactly("failed:thumbnail", "failed:thumbnail", "succeeded:thumbnail", "succeeded:thumbnail");
		assertThat(orphans(this.db)).isZero();
		assertThat(maintenance.lastRetentionReport()).contains(report);
		assertThatIllegalArgumentException().isThrownBy(() -> maintenance.purge(JobStatus.PENDING, Duration.ZERO))
			.withMessageContaining("Only finished jobs can be purged");
		assertThatIllegalArgumentException().isThrownBy(() -> maintenance.purge(JobStatus.FAILED, Duration.ofDays(-1)))
			.withMessageContaining("zero or positive");
	}

	@Test
	void policyTellsRetentionPerStatusAndType() {
		assertThat(POLICY.retention(JobStatus.SUCCEEDED, "thumbnail")).contains(Duration.ofDays(30));
		assertThat(POLICY.retention(JobStatus.FAILED, "report")).contains(Duration.ofDays(7));
		assertThat(POLICY.retention(JobStatus.FAILED, "audit")).isEmpty();
		assertThat(POLICY.retention(JobStatus.PENDING, "thumbnail")).isEmpty();
		assertThat(POLICY.retention(JobStatus.RUNNING, "report")).isEmpty();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetentionPolicy.of(null, null, null, Map.of(" ", Duration.ofDays(1))))
			.withMessageContaining("per-type.<type>");
		assertThatIllegalArgumentException().isThrownBy(() -> RetentionSettings.of(POLICY, 0))
			.withMessageContaining("jobqueue.retention.batch-size");
	}

	private void insertExpired(JobStatus status, String type, int count) {
		JobRows.insert(this.db.dataSource(), "", count, type, status, this.clock.instant().minus(Duration.ofDays(400)),
				Duration.ofMillis(1));
	}

	private RetentionCleaner cleaner(RetentionPolicy policy, int batchSize) {
		return new RetentionCleaner(this.store, RetentionSettings.of(policy, batchSize), this.clock, "test-cleaner",
				() -> true);
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
