package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.core.store.QueueSnapshot;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file of schema V12 migrates to V14 (attempts used are indexed for retried and failed
 * jobs only): the distribution of attempts still counts every unfinished and failed job,
 * the pending jobs that never ran among them, and a job that succeeds at its first run
 * has no entry in the new index.
 */
class RetriesIndexMigrationTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	@TempDir
	Path dir;

	@ParameterizedTest
	@ValueSource(strings = { "", "jq_" })
	void theDistributionOfAttemptsAnswersFromTheNewIndex(String prefix) throws Exception {
		Path file = this.dir.resolve("old.db");
		TestDatabase.migrateFileTo(file, prefix, "12");
		long before = NOW.minusSeconds(60).toEpochMilli();
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement()) {
			statement.execute("INSERT INTO " + prefix
					+ "jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at, "
					+ "started_at, finished_at, worker_id, lease_until, waiting_for) VALUES "
					+ "(1, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 0), ".formatted(before)
					+ "(2, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 0), ".formatted(before)
					+ "(3, 'mail', 'pending', '{}', 1, 3, 1, %1$d, %1$d, %1$d, NULL, NULL, NULL, 0), ".formatted(before)
					+ "(4, 'mail', 'running', '{}', 2, 3, 2, %1$d, %1$d, %1$d, NULL, 'w', %2$d, 0), ".formatted(before,
							NOW.plusSeconds(60).toEpochMilli())
					+ "(5, 'mail', 'failed', '{}', 3, 3, 3, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0), ".formatted(before)
					+ "(6, 'mail', 'failed', '{}', 0, 3, 0, %1$d, %1$d, NULL, %1$d, NULL, NULL, 0), ".formatted(before)
					+ "(7, 'mail', 'succeeded', '{}', 1, 3, 1, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0), "
						.formatted(before)
					+ "(8, 'report', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 0)"
						.formatted(before));
		}
		try (TestDatabase db = TestDatabase.create(file, prefix)) {
			SqliteQueueInsights insights = new SqliteQueueInsights(db.database(), SqliteDialect.tables(prefix));
			QueueSnapshot snapshot = insights.snapshot(NOW,
					new SnapshotSettings(Duration.ofMinutes(15), 10, Duration.ofMinutes(3), 10));

			assertThat(snapshot.retriesByType())
				.isEqualTo(Map.of("mail", Map.of(0, 3L, 1, 1L, 2, 1L, 3, 1L), "report", Map.of(0, 1L)));
			assertThat(db.column("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN (?, ?)",
					prefix + "jobs_unfinished_attempts_idx", prefix + "jobs_retries_idx"))
				.containsExactly(prefix + "jobs_retries_idx");
			// Only the retried pending job and the two failed ones have an entry.
			assertThat(db.count("SELECT count(*) FROM " + prefix + "jobs INDEXED BY " + prefix
					+ "jobs_retries_idx WHERE status = 'failed' OR status = 'pending' AND attempts > 0"))
				.isEqualTo(3);
			assertThat(db.column("PRAGMA integrity_check")).containsExactly("ok");
		}
	}

}
