package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteRetentionStore;
import dev.jobqueue.testing.DelegatingRetentionStore;
import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;

import static dev.jobqueue.testing.RetentionFixtures.orphans;
import static org.assertj.core.api.Assertions.assertThat;

class QueueHousekeepingTests {

	@TempDir
	Path dir;

	MutableClock clock = MutableClock.startingAt("2026-06-01T00:00:00Z");

	@Test
	void stopEndsARunningCleanupBetweenBatchesPromptly() throws Exception {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			JobRows.insert(db.dataSource(), "", 5_000, "thumbnail", JobStatus.SUCCEEDED,
					this.clock.instant().minus(Duration.ofDays(100)), Duration.ofMillis(1));
			CountDownLatch thirdBatch = new CountDownLatch(3);
			AtomicInteger batches = new AtomicInteger();
			AtomicReference<Thread> cleaningThread = new AtomicReference<>();
			SqliteRetentionStore sqlite = new SqliteRetentionStore(db.database(), SqliteDialect.tables(""));
			DelegatingRetentionStore slow = new DelegatingRetentionStore(sqlite) {
				@Override
				public int deleteFinished(JobStatus status, String type, Instant finishedBefore, int limit) {
					batches.incrementAndGet();
					cleaningThread.set(Thread.currentThread());
					thirdBatch.countDown();
					return super.deleteFinished(status, type, finishedBefore, limit);
				}
			};
			RetentionPolicy policy = RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(90), Duration.ofDays(30),
					Map.of());
			// Ten jobs a batch and a long pause after each: the whole cleanup would take
			// minutes.
			RetentionSettings settings = RetentionSettings.of(policy, 10).withBatchPause(1_000);
			RetentionCleaner cleaner = new RetentionCleaner(slow, sqlite.files(), settings, this.clock, "me",
					() -> true);
			QueueHousekeeping housekeeping = new QueueHousekeeping(cleaner, Duration.ofMillis(10), true);
			housekeeping.start();
			assertThat(thirdBatch.await(30, TimeUnit.SECONDS)).isTrue();

			housekeeping.stop();
			int batchesAtStop = batches.get();

			assertThat(housekeeping.isRunning()).isFalse();
			assertThat(cleaningThread.get().isAlive()).as("the housekeeping thread ended within stop()").isFalse();
			RetentionReport report = cleaner.lastReport().orElseThrow();
			assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.STOPPED);
			assertThat(db.count("SELECT count(*) FROM jobs")).isBetween(1L, 5_000L - 20);
			assertThat(orphans(db)).isZero();
			assertThat(db.column("SELECT lease_until FROM job_housekeeping")).as("lease released").containsExactly(0);
			assertThat(batches.get()).as("no batch after the stop").isEqualTo(batchesAtStop);
		}
	}

}
