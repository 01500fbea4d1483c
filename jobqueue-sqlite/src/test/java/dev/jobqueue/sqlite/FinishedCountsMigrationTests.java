package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file of schema V15 with finished and unfinished jobs migrates to V16 (finished jobs
 * counted as they finish): the counts are filled from the finished jobs already kept, so
 * the snapshot reports what it did before the upgrade, and jobs finishing, retried or
 * deleted afterwards change them.
 */
class FinishedCountsMigrationTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	private static final SnapshotSettings SETTINGS = new SnapshotSettings(Duration.ofMinutes(15), 5,
			Duration.ofMinutes(3), 10);

	@TempDir
	Path dir;

	@ParameterizedTest
	@ValueSource(strings = { "", "jq_" })
	void aFileOfSchemaFifteenReportsTheFinishedJobsItKept(String prefix) throws Exception {
		Path file = this.dir.resolve("old.db");
		TestDatabase.migrateFileTo(file, prefix, "15");
		long t = NOW.minusSeconds(60).toEpochMilli();
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement()) {
			statement.execute("INSERT INTO " + prefix
					+ "jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at, started_at, "
					+ "finished_at, worker_id, lease_until, waiting_for) VALUES "
					+ "(1, 'mail', 'succeeded', '{}', 1, 3, 1, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0), ".formatted(t)
					+ "(2, 'mail', 'succeeded', '{}', 1, 3, 1, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0), ".formatted(t)
					+ "(3, 'mail', 'failed', '{}', 3, 3, 3, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0), ".formatted(t)
					+ "(4, 'report', 'cancelled', '{}', 0, 3, 0, %1$d, %1$d, NULL, %1$d, NULL, NULL, 0), ".formatted(t)
					+ "(5, 'report', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 0), ".formatted(t)
					+ "(6, 'report', 'running', '{}', 1, 3, 1, %1$d, %1$d, %1$d, NULL, 'w', %2$d, 0), ".formatted(t,
							NOW.plusSeconds(3600).toEpochMilli())
					+ "(7, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 0)".formatted(t));
		}
		try (TestDatabase db = TestDatabase.create(file, prefix)) {
			assertThat(counts(db))
				.isEqualTo(Map.of("mail", Map.of(JobStatus.SUCCEEDED, 2L, JobStatus.FAILED, 1L, JobStatus.PENDING, 1L),
						"report", Map.of(JobStatus.CANCELLED, 1L, JobStatus.PENDING, 1L, JobStatus.RUNNING, 1L)));
			assertThat(db.column("SELECT shard FROM " + prefix + "job_finished_counts")).containsOnly(0);

			ClaimedJob claimed = db.store()
				.claim(new ClaimRequest("new", 1, Set.of("mail"), Map.of(), Set.of(), NOW.plusSeconds(60)), NOW)
				.get(0);
			assertThat(claimed.id()).isEqualTo(7);
			assertThat(db.store().complete(List.of(Completion.failed(claimed, "SMTP:REFUSED", "no")), "new", NOW))
				.containsExactly(true);
			assertThat(db.admin().retry(3, NOW)).isTrue();
			assertThat(counts(db).get("mail"))
				.isEqualTo(Map.of(JobStatus.SUCCEEDED, 2L, JobStatus.FAILED, 1L, JobStatus.PENDING, 1L));
			assertThat(db.column("PRAGMA integrity_check")).containsExactly("ok");
		}
	}

	private static Map<String, Map<JobStatus, Long>> counts(TestDatabase db) {
		return db.insights().snapshot(NOW, SETTINGS).counts();
	}

}
