package dev.jobqueue.sqlite;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.DefaultJobQueueMaintenance;
import dev.jobqueue.core.retention.JobQueueMaintenance;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.core.store.StorageStats;
import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;

import static dev.jobqueue.testing.RetentionFixtures.orphans;
import static org.assertj.core.api.Assertions.assertThat;

class SqliteRetentionStoreTests {

	private static final RetentionPolicy THIRTY_DAYS = RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(30),
			Duration.ofDays(30), Map.of());

	@TempDir
	Path dir;

	MutableClock clock = MutableClock.startingAt("2026-06-01T00:00:00Z");

	@Test
	void aNewFileHasIncrementalAutoVacuumInWalModeBeforeItsFirstTable() throws SQLException {
		try (TestDatabase db = TestDatabase.create(this.dir.resolve("new.db"), "jq_")) {
			assertThat(db.column("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")).first()
				.isEqualTo("jq_jobqueue_schema_history");
		}
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + this.dir.resolve("new.db"));
				Statement statement = connection.createStatement()) {
			assertThat(pragma(statement, "journal_mode")).isEqualTo("wal");
			assertThat(pragma(statement, "auto_vacuum")).isEqualTo("2");
		}
	}

	@Test
	void everyQueueConnectionLimitsTheWalAndEnforcesForeignKeys() {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			assertThat(db.column("PRAGMA journal_size_limit")).containsExactly(64 * 1024 * 1024);
			assertThat(db.column("PRAGMA foreign_keys")).containsExactly(1);
		}
	}

	@Test
	void deletesFindTheirRowsThroughTheFinishedIndexOneTypeAtATime() {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			assertThat(plan(db,
					"SELECT id FROM jobs INDEXED BY jobs_finished_idx WHERE status = 'failed' "
							+ "AND type = 'x' AND finished_at < 5 LIMIT 10"))
				.containsExactly(
						"SEARCH jobs USING COVERING INDEX jobs_finished_idx (status=? AND type=? AND finished_at<?)");
			assertThat(plan(db,
					"SELECT type FROM jobs INDEXED BY jobs_finished_idx WHERE status = 'failed' "
							+ "AND type > 'x' AND finished_at IS NOT NULL ORDER BY type LIMIT 1"))
				.containsExactly("SEARCH jobs USING COVERING INDEX jobs_finished_idx (status=? AND type>?)");
			assertThat(plan(db, "DELETE FROM jobs WHERE id = 1")).contains(
					"SEARCH job_attempts USING PRIMARY KEY (job_id=?)",
					"SEARCH job_events USING COVERING INDEX job_events_job_idx (job_id=?)");
		}
	}

	@Test
	void aCleanupThatFreedPagesShrinksTheFileAndEmptiesTheFreeList() {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			SqliteRetentionStore store = store(db, "");
			JobRows.insert(db.dataSource(), "", 20_000, "thumbnail", JobStatus.SUCCEEDED,
					this.clock.instant().minus(Duration.ofDays(60)), Duration.ofMillis(10));
			JobRows.insert(db.dataSource(), "", 1_000, "thumbnail", JobStatus.SUCCEEDED, this.clock.instant(),
					Duration.ofMillis(10));
			StorageStats before = store.files().checkpoint(true);

			RetentionReport report = cleaner(store, 1_000).purgeOnce();

			StorageStats after = store.storage();
			assertThat(report.totalDeleted()).isEqualTo(20_000);
			assertThat(report.bytesReclaimed()).isPositive();
			assertThat(after.freeBytes()).isZero();
			assertThat(after.fileBytes()).isLessThan(before.fileBytes() / 5);
			assertThat(before.fileBytes() - after.fileBytes()).isGreaterThanOrEqualTo(report.bytesReclaimed());
			assertThat(report.walBytes()).isZero();
			assertThat(orphans(db)).isZero();
		}
	}

	@Test
	void vacuumStepsAreBoundedAndTheNextRunsGoOn() {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			SqliteRetentionStore store = store(db, "");
			JobRows.insert(db.dataSource(), "", 10_000, "thumbnail", JobStatus.SUCCEEDED,
					this.clock.instant().minus(Duration.ofDays(60)), Duration.ofMillis(10));
			RetentionSettings tiny = new RetentionSettings(THIRTY_DAYS, 5_000, 0, Duration.ofMinutes(2), 10, 3);
			RetentionCleaner cleaner = new RetentionCleaner(store, store.files(), tiny, this.clock, "me", () -> true);

			RetentionReport first = cleaner.purgeOnce();

			long pageSize = db.count("PRAGMA page_size");
			assertThat(first.bytesReclaimed()).isEqualTo(30 * pageSize);
			assertThat(store.storage().freeBytes()).isPositive();
			long reclaimed = 0;
			for (int run = 0; run < 1_000 && store.storage().freeBytes() > 0; run++) {
				reclaimed += cleaner.purgeOnce().bytesReclaimed();
			}
			assertThat(store.storage().freeBytes()).isZero();
			assertThat(reclaimed).isPositive();
		}
	}

	@Test
	void anExistingFileWithoutAutoVacuumCanBeSwitchedToIncrementalOffPeak() throws SQLException {
		Path file = this.dir.resolve("app.db");
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement()) {
			statement.execute("PRAGMA journal_mode = WAL");
			statement.execute("CREATE TABLE app_notes (id INTEGER PRIMARY KEY, text TEXT)");
		}
		try (TestDatabase db = TestDatabase.create(file, "")) {
			SqliteRetentionStore store = store(db, "");
			JobRows.insert(db.dataSource(), "", 5_000, "thumbnail", JobStatus.SUCCEEDED,
					this.clock.instant().minus(Duration.ofDays(60)), Duration.ofMillis(10));
			RetentionCleaner cleaner = cleaner(store, 1_000);
			JobQueueMaintenance maintenance = new DefaultJobQueueMaintenance(cleaner, store);

			RetentionReport withoutIncremental = cleaner.purgeOnce();

			StorageStats stuck = maintenance.storage();
			assertThat(stuck.incrementalVacuum()).isFalse();
			assertThat(withoutIncremental.totalDeleted()).isEqualTo(5_000);
			assertThat(withoutIncremental.bytesReclaimed()).isZero();
			assertThat(stuck.freeBytes()).isPositive();

			StorageStats switched = maintenance.enableIncrementalVacuum();

			assertThat(switched.incrementalVacuum()).isTrue();
			assertThat(switched.freeBytes()).isZero();
			assertThat(switched.fileBytes()).isLessThan(stuck.fileBytes());
			assertThat(switched.walBytes()).isZero();
			assertThat(db.column("SELECT count(*) FROM app_notes")).containsExactly(0);

			JobRows.insert(db.dataSource(), "", 5_000, "thumbnail", JobStatus.SUCCEEDED,
					this.clock.instant().minus(Duration.ofDays(60)), Duration.ofMillis(10));
			RetentionReport withIncremental = cleaner.purgeOnce();

			assertThat(withIncremental.bytesReclaimed()).isPositive();
			assertThat(maintenance.storage().freeBytes()).isZero();
		}
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement()) {
			assertThat(pragma(statement, "auto_vacuum")).isEqualTo("2");
		}
	}

	@Test
	void fullVacuumOffPeakCompactsTheFileAndTruncatesTheWal() {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			SqliteRetentionStore store = store(db, "");
			JobRows.insert(db.dataSource(), "", 5_000, "thumbnail", JobStatus.SUCCEEDED,
					this.clock.instant().minus(Duration.ofDays(60)), Duration.ofMillis(10));
			store.deleteFinished(JobStatus.SUCCEEDED, "thumbnail", this.clock.instant(), 10_000);
			StorageStats before = store.files().checkpoint(true);

			StorageStats after = new DefaultJobQueueMaintenance(cleaner(store, 100), store).vacuum();

			assertThat(before.freeBytes()).isPositive();
			assertThat(after.freeBytes()).isZero();
			assertThat(after.fileBytes()).isLessThan(before.fileBytes());
			assertThat(after.walBytes()).isZero();
			assertThat(Files.exists(db.file())).isTrue();
		}
	}

	@Test
	void checkpointsArePassiveWhileJobsRunAndTruncateWhenIdle() {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			SqliteRetentionStore store = store(db, "");
			JobRows.insert(db.dataSource(), "", 2_000, "thumbnail", JobStatus.SUCCEEDED, this.clock.instant(),
					Duration.ofMillis(10));
			boolean[] idle = { false };
			RetentionCleaner cleaner = new RetentionCleaner(store, store.files(),
					RetentionSettings.of(THIRTY_DAYS, 100), Clock.systemUTC(), "me", () -> idle[0]);

			StorageStats busy = cleaner.checkpoint();
			assertThat(busy.walBytes()).as("a passive checkpoint keeps the log file").isPositive();

			idle[0] = true;
			assertThat(cleaner.checkpoint().walBytes()).isZero();
		}
	}

	private SqliteRetentionStore store(TestDatabase db, String prefix) {
		return new SqliteRetentionStore(db.database(), SqliteDialect.tables(prefix));
	}

	private RetentionCleaner cleaner(SqliteRetentionStore store, int batchSize) {
		return new RetentionCleaner(store, store.files(), RetentionSettings.of(THIRTY_DAYS, batchSize), this.clock,
				"me", () -> true);
	}

	private static List<String> plan(TestDatabase db, String sql) {
		List<String> details = new ArrayList<>();
		try (Connection connection = db.dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
			while (rows.next()) {
				details.add(rows.getString("detail"));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		return details;
	}

	private static String pragma(Statement statement, String name) throws SQLException {
		try (ResultSet rows = statement.executeQuery("PRAGMA " + name)) {
			rows.next();
			return rows.getString(1);
		}
	}

}
