package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.jobqueue.JobStatus;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file of schema V9 with jobs in every status migrates to V10 (running jobs indexed by
 * type, not by lease end): every job keeps its row and status, and a running job whose
 * lease expired is still taken back.
 */
class RunningIndexMigrationTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	@TempDir
	Path dir;

	@ParameterizedTest
	@ValueSource(strings = { "", "jq_" })
	void aFileOfSchemaNineKeepsEveryJobAndRecoversAnExpiredLease(String prefix) throws Exception {
		Path file = this.dir.resolve("old.db");
		TestDatabase.migrateFileTo(file, prefix, "9");
		long before = NOW.minusSeconds(60).toEpochMilli();
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement()) {
			statement.execute("INSERT INTO " + prefix
					+ "jobs (id, type, status, payload, attempts, max_attempts, runs, "
					+ "run_at, created_at, started_at, finished_at, worker_id, lease_until, waiting_for) VALUES "
					+ "(1, 'old', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 0), ".formatted(before)
					+ "(2, 'old', 'running', '{}', 1, 3, 1, %1$d, %1$d, %1$d, NULL, 'gone', %1$d, 0), "
						.formatted(before)
					+ "(3, 'old', 'succeeded', '{}', 1, 3, 1, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0), ".formatted(before)
					+ "(4, 'old', 'failed', '{}', 3, 3, 3, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0), ".formatted(before)
					+ "(5, 'old', 'cancelled', '{}', 0, 3, 0, %1$d, %1$d, NULL, %1$d, NULL, NULL, 0), "
						.formatted(before)
					+ "(6, 'old', 'waiting', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 1)".formatted(before));
		}
		try (TestDatabase db = TestDatabase.create(file, prefix)) {
			List<JobStatus> statuses = new ArrayList<>();
			for (long id = 1; id <= 6; id++) {
				statuses.add(db.admin().find(id).orElseThrow().status());
			}
			assertThat(statuses).containsExactly(JobStatus.PENDING, JobStatus.RUNNING, JobStatus.SUCCEEDED,
					JobStatus.FAILED, JobStatus.CANCELLED, JobStatus.WAITING);
			assertThat(db.store().recoverExpiredLeases(NOW, 100)).isOne();
			assertThat(db.admin().find(2).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
			assertThat(db.column("SELECT sql FROM sqlite_master WHERE name = ?", prefix + "jobs_running_idx"))
				.singleElement()
				.asString()
				.contains("(type)")
				.contains("'running'");
			assertThat(db.column("PRAGMA integrity_check")).containsExactly("ok");
		}
	}

}
