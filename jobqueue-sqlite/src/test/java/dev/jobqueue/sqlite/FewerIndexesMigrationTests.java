package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.core.store.QueueSnapshot;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file of schema V11 with jobs in every status, with their attempts and events,
 * migrates to V12 (no index of every job's status; partial ones for failed, cancelled and
 * waiting jobs): every job keeps its row, status and history, the counts per status and
 * the lists by status still answer, from the indexes left.
 */
class FewerIndexesMigrationTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	@TempDir
	Path dir;

	@ParameterizedTest
	@ValueSource(strings = { "", "jq_" })
	void aFileOfSchemaElevenKeepsEveryJobWithItsHistory(String prefix) throws Exception {
		Path file = this.dir.resolve("old.db");
		TestDatabase.migrateFileTo(file, prefix, "11");
		long before = NOW.minusSeconds(60).toEpochMilli();
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement()) {
			statement.execute("INSERT INTO " + prefix
					+ "jobs (id, type, status, payload, attempts, max_attempts, runs, "
					+ "run_at, created_at, started_at, finished_at, worker_id, lease_until, waiting_for) VALUES "
					+ "(1, 'old', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 0), ".formatted(before)
					+ "(2, 'old', 'running', '{}', 1, 3, 1, %1$d, %1$d, %1$d, NULL, 'w', %2$d, 0), ".formatted(before,
							NOW.plusSeconds(60).toEpochMilli())
					+ "(3, 'old', 'succeeded', '{}', 1, 3, 1, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0), ".formatted(before)
					+ "(4, 'old', 'failed', '{}', 3, 3, 3, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0), ".formatted(before)
					+ "(5, 'old', 'cancelled', '{}', 0, 3, 0, %1$d, %1$d, NULL, %1$d, NULL, NULL, 0), "
						.formatted(before)
					+ "(6, 'old', 'waiting', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 1)".formatted(before));
			statement.execute("INSERT INTO " + prefix + "job_attempts (job_id, run, attempt, worker_id, started_at, "
					+ "finished_at, outcome) VALUES (2, 1, 1, 'w', %1$d, NULL, NULL), ".formatted(before)
					+ "(3, 1, 1, 'w', %1$d, %1$d, 'SUCCEEDED'), (4, 3, 3, 'w', %1$d, %1$d, 'FAILED')"
						.formatted(before));
			statement.execute("INSERT INTO " + prefix + "job_events (job_id, at, event) SELECT id, " + before
					+ ", 'ENQUEUED' FROM " + prefix + "jobs");
		}
		try (TestDatabase db = TestDatabase.create(file, prefix)) {
			List<JobStatus> statuses = new ArrayList<>();
			for (long id = 1; id <= 6; id++) {
				statuses.add(db.admin().find(id).orElseThrow().status());
			}
			assertThat(statuses).containsExactly(JobStatus.PENDING, JobStatus.RUNNING, JobStatus.SUCCEEDED,
					JobStatus.FAILED, JobStatus.CANCELLED, JobStatus.WAITING);
			assertThat(db.count("SELECT count(*) FROM " + prefix + "job_attempts")).isEqualTo(3);
			assertThat(db.count("SELECT count(*) FROM " + prefix + "job_events")).isEqualTo(6);

			SqliteQueueInsights insights = new SqliteQueueInsights(db.database(), SqliteDialect.tables(prefix));
			QueueSnapshot snapshot = insights.snapshot(NOW,
					new SnapshotSettings(Duration.ofMinutes(15), 10, Duration.ofMinutes(3), 10));
			assertThat(snapshot.countsByStatus()).containsEntry(JobStatus.PENDING, 1L)
				.containsEntry(JobStatus.RUNNING, 1L)
				.containsEntry(JobStatus.SUCCEEDED, 1L)
				.containsEntry(JobStatus.FAILED, 1L)
				.containsEntry(JobStatus.CANCELLED, 1L)
				.containsEntry(JobStatus.WAITING, 1L);
			for (JobStatus status : JobStatus.values()) {
				assertThat(insights.jobs(new JobQuery(status, "old", null, null, 10)).jobs()).as(status.name())
					.singleElement()
					.satisfies((job) -> assertThat(job.status()).isEqualTo(status));
			}

			assertThat(db.column(
					"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
							+ "AND name IN (?, ?, ?, ?, ?) ORDER BY name",
					prefix + "jobs", prefix + "jobs_status_idx", prefix + "jobs_status_type_idx",
					prefix + "jobs_failed_idx", prefix + "jobs_cancelled_idx", prefix + "jobs_waiting_idx"))
				.containsExactly(prefix + "jobs_cancelled_idx", prefix + "jobs_failed_idx",
						prefix + "jobs_waiting_idx");
			assertThat(db.column("PRAGMA integrity_check")).containsExactly("ok");
		}
	}

}
