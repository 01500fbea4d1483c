package dev.jobqueue.core;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteRetentionStore;
import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.LongTest;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;

import static dev.jobqueue.testing.RetentionFixtures.orphans;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * After many processed jobs expire, one cleanup with incremental vacuum brings the file
 * back near the size of a file holding only the live jobs.
 * {@code -Djobqueue.test.retention.jobs=1000000} (Maven profile {@code retention-long})
 * runs it with a million jobs.
 */
@LongTest
class RetentionFileSizeTests {

	static final int EXPIRED = Integer.getInteger("jobqueue.test.retention.jobs", 100_000);

	static final int LIVE = Math.max(EXPIRED / 20, 1_000);

	@TempDir
	Path dir;

	MutableClock clock = MutableClock.startingAt("2026-06-01T00:00:00Z");

	@Test
	void oneCleanupShrinksTheFileToWithinTwiceItsSizeWithTheLiveJobsOnly() {
		long liveOnly;
		try (TestDatabase db = TestDatabase.create(this.dir.resolve("live.db"), "")) {
			insertLive(db);
			liveOnly = store(db).files().checkpoint(true).fileBytes();
		}
		try (TestDatabase db = TestDatabase.create(this.dir.resolve("queue.db"), "")) {
			SqliteRetentionStore store = store(db);
			JobRows.insert(db.dataSource(), "", EXPIRED / 2, "thumbnail", JobStatus.SUCCEEDED,
					this.clock.instant().minus(Duration.ofDays(100)), Duration.ofMillis(10));
			JobRows.insert(db.dataSource(), "", EXPIRED / 4, "report", JobStatus.FAILED,
					this.clock.instant().minus(Duration.ofDays(200)), Duration.ofMillis(10));
			JobRows.insert(db.dataSource(), "", EXPIRED - EXPIRED / 2 - EXPIRED / 4, "thumbnail", JobStatus.CANCELLED,
					this.clock.instant().minus(Duration.ofDays(100)), Duration.ofMillis(10));
			insertLive(db);
			long full = store.files().checkpoint(true).fileBytes();
			RetentionSettings settings = new RetentionSettings(
					RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(90), Duration.ofDays(30), Map.of()), 5_000,
					0, Duration.ofMinutes(2), 4096, 10_000);
			RetentionCleaner cleaner = new RetentionCleaner(store, store.files(), settings, this.clock, "me",
					() -> true);

			RetentionReport report = cleaner.purgeOnce();

			long after = store.storage().fileBytes();
			System.out.printf(
					"file size: %d expired + %d live jobs %d bytes, after cleanup %d bytes "
							+ "(reclaimed %d), live jobs only %d bytes: %.2fx%n",
					EXPIRED, LIVE, full, after, report.bytesReclaimed(), liveOnly, (double) after / liveOnly);
			assertThat(report.totalDeleted()).isEqualTo(EXPIRED);
			assertThat(db.count("SELECT count(*) FROM jobs")).isEqualTo(LIVE);
			assertThat(orphans(db)).isZero();
			assertThat(after).isLessThanOrEqualTo(2 * liveOnly);
			assertThat(report.walBytes()).isZero();
		}
	}

	/**
	 * The most recent jobs: succeeded within their retention, failed, and still pending.
	 */
	private void insertLive(TestDatabase db) {
		Instant now = this.clock.instant();
		JobRows.insert(db.dataSource(), "", LIVE / 2, "thumbnail", JobStatus.SUCCEEDED, now.minus(Duration.ofDays(2)),
				Duration.ofMillis(10));
		JobRows.insert(db.dataSource(), "", LIVE / 4, "report", JobStatus.FAILED, now.minus(Duration.ofDays(40)),
				Duration.ofMillis(10));
		JobRows.insert(db.dataSource(), "", LIVE - LIVE / 2 - LIVE / 4, "thumbnail", JobStatus.PENDING,
				now.minus(Duration.ofHours(1)), Duration.ofMillis(10));
	}

	private static SqliteRetentionStore store(TestDatabase db) {
		return new SqliteRetentionStore(db.database(), SqliteDialect.tables(""));
	}

}
