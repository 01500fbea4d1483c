package dev.jobqueue.core;

import java.nio.file.Path;
import java.time.Duration;
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
import dev.jobqueue.testing.ChildJvm;
import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.LongTest;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.RetentionCleanerMain;
import dev.jobqueue.testing.TestDatabase;

import static dev.jobqueue.testing.RetentionFixtures.orphans;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cleanup process killed with SIGKILL half-way leaves a consistent file, and the next
 * run finishes.
 */
@LongTest
class RetentionCrashTests {

	private static final int EXPIRED = 40_000;

	@TempDir
	Path dir;

	MutableClock clock = MutableClock.startingAt("2026-06-01T00:00:00Z");

	@Test
	void cleanupKilledHalfWayLeavesAConsistentFileAndTheNextRunFinishesTheJob() throws Exception {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			JobRows.insert(db.dataSource(), "", EXPIRED, "thumbnail", JobStatus.SUCCEEDED,
					this.clock.instant().minus(Duration.ofDays(100)), Duration.ofMillis(10));
			JobRows.insert(db.dataSource(), "", 500, "thumbnail", JobStatus.SUCCEEDED, this.clock.instant(),
					Duration.ofMillis(10));
			ChildJvm cleaner = ChildJvm.startWatched(RetentionCleanerMain.class, this.dir.resolve("cleaner.log"),
					db.file(), this.clock.millis(), 500, "crashed-cleaner");
			long reported = 0;
			while (reported < EXPIRED / 4) {
				// Fails unless the cleaner process reports its batches.
				String line = cleaner.nextLine(Duration.ofSeconds(60));
				assertThat(line).doesNotStartWith("done");
				if (line.startsWith("deleted ")) {
					reported += Long.parseLong(line.substring("deleted ".length()));
				}
			}
			assertThat(cleaner.kill().waitForExit(Duration.ofSeconds(30))).as("killed by SIGKILL")
				.isEqualTo(ChildJvm.KILLED);

			long left = db.count("SELECT count(*) FROM jobs WHERE finished_at < ?",
					this.clock.instant().minus(Duration.ofDays(30)).toEpochMilli());
			assertThat(left).isBetween(1L, EXPIRED - reported);
			assertThat(db.column("PRAGMA integrity_check")).containsExactly("ok");
			assertThat(db.column("PRAGMA foreign_key_check")).isEmpty();
			assertThat(orphans(db)).isZero();
			assertThat(db.column("SELECT owner FROM job_housekeeping WHERE lease_until > ?", this.clock.millis()))
				.as("the dead process's lease is still there")
				.containsExactly("crashed-cleaner");

			SqliteRetentionStore store = new SqliteRetentionStore(db.database(), SqliteDialect.tables(""));
			RetentionCleaner restarted = new RetentionCleaner(store, store.files(), RetentionSettings
				.of(RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(90), Duration.ofDays(30), Map.of()), 5_000),
					this.clock, "restarted", () -> true);
			assertThat(restarted.purgeOnce().outcome()).isEqualTo(RetentionReport.Outcome.SKIPPED);

			this.clock.advance(Duration.ofMinutes(2));
			RetentionReport next = restarted.purgeOnce();

			assertThat(next.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
			assertThat(next.totalDeleted()).isEqualTo(left);
			assertThat(db.count("SELECT count(*) FROM jobs")).isEqualTo(500);
			assertThat(db.count("SELECT count(*) FROM job_attempts")).isEqualTo(500);
			assertThat(db.count("SELECT count(*) FROM job_events")).isEqualTo(3 * 500);
			assertThat(orphans(db)).isZero();
			assertThat(db.column("PRAGMA integrity_check")).containsExactly("ok");
		}
	}

}
