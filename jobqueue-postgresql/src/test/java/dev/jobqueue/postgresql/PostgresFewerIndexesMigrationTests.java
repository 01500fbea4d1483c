package dev.jobqueue.postgresql;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.core.store.QueueSnapshot;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue of schema V7 with jobs in every status, with their attempts and events,
 * migrates to V8 (fewer index entries per job): every job keeps its row, status, attempts
 * and events; the history tables lose their foreign keys, and retention still deletes a
 * job's attempts and events with it. In a schema of its own with a table prefix, as the
 * migration finds the constraints it drops by what they are, not by name.
 */
@PostgresTest
class PostgresFewerIndexesMigrationTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	private static final Tables TABLES = PostgresDialect.tables("queue", "jq_");

	@RegisterExtension
	final MigrationDatabase db = new MigrationDatabase(TABLES);

	@Test
	void aV7QueueWithJobsInEveryStatusKeepsThemWithTheirHistory() throws SQLException {
		this.db.migrateTo("7");
		this.db.execute("""
				INSERT INTO queue.jq_jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at,
				                           started_at, finished_at, worker_id, lease_until, waiting_for, error_code)
				OVERRIDING SYSTEM VALUE VALUES
				(1, 'old', 'pending', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, NULL, NULL, NULL, 0, NULL),
				(2, 'old', 'running', '{}', 1, 3, 1, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', NULL, 'gone',
				 '2029-12-31T00:00:30Z', 0, NULL),
				(3, 'old', 'succeeded', '{}', 1, 3, 1, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', 'w',
				 NULL, 0, NULL),
				(4, 'old', 'failed', '{}', 3, 3, 3, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', 'w',
				 NULL, 0, 'X:Y'),
				(5, 'old', 'cancelled', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, '2029-12-31Z', NULL, NULL, 0,
				 NULL),
				(6, 'old', 'waiting', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, NULL, NULL, NULL, 1, NULL)
				""");
		this.db.execute("SELECT setval(pg_get_serial_sequence('queue.jq_jobs', 'id'), 6)");
		this.db.execute("""
				INSERT INTO queue.jq_job_attempts (job_id, run, attempt, worker_id, started_at, finished_at, outcome)
				VALUES (2, 1, 1, 'gone', '2029-12-31Z', NULL, NULL),
				       (3, 1, 1, 'w', '2029-12-31Z', '2029-12-31Z', 'SUCCEEDED'),
				       (4, 1, 1, 'w', '2029-12-31Z', '2029-12-31Z', 'FAILED'),
				       (4, 2, 2, 'w', '2029-12-31Z', '2029-12-31Z', 'FAILED'),
				       (4, 3, 3, 'w', '2029-12-31Z', '2029-12-31Z', 'FAILED')
				""");
		this.db.execute("""
				INSERT INTO queue.jq_job_events (job_id, at, event)
				SELECT id, timestamptz '2029-12-31Z', 'ENQUEUED' FROM queue.jq_jobs
				UNION ALL SELECT 3, '2029-12-31Z', 'SUCCEEDED'
				UNION ALL SELECT 4, '2029-12-31Z', 'FAILED'
				""");
		this.db.execute("INSERT INTO queue.jq_job_dependencies (depends_on, job_id) VALUES (1, 6)");

		try (PostgresStorage storage = new PostgresStorage(new PostgresDatabase(this.db.dataSource(), "test"),
				TABLES)) {
			storage.initializeSchema();
			List<JobStatus> statuses = new ArrayList<>();
			for (long id = 1; id <= 6; id++) {
				statuses.add(storage.admin().find(id).orElseThrow().status());
			}
			assertThat(statuses).containsExactly(JobStatus.PENDING, JobStatus.RUNNING, JobStatus.SUCCEEDED,
					JobStatus.FAILED, JobStatus.CANCELLED, JobStatus.WAITING);
			assertThat(this.db.count("SELECT count(*) FROM queue.jq_job_attempts")).isEqualTo(5);
			assertThat(this.db.count("SELECT count(*) FROM queue.jq_job_events")).isEqualTo(8);
			assertThat(storage.admin().find(4).orElseThrow().errorCode()).isEqualTo("X:Y");

			assertThat(this.db.count("""
					SELECT count(*) FROM pg_constraint
					WHERE contype = 'f' AND confrelid = 'queue.jq_jobs'::regclass
					  AND conrelid IN ('queue.jq_job_attempts'::regclass, 'queue.jq_job_events'::regclass)
					""")).isZero();
			assertThat(this.db.text("SELECT pg_get_constraintdef(oid) FROM pg_constraint "
					+ "WHERE contype = 'p' AND conrelid = 'queue.jq_job_events'::regclass"))
				.isEqualTo("PRIMARY KEY (job_id, id)");
			assertThat(this.db.count("SELECT count(*) FROM pg_indexes WHERE schemaname = 'queue' "
					+ "AND indexname IN ('jq_jobs_status_type_idx', 'jq_job_events_job_idx')"))
				.isZero();

			// The succeeded job goes with its attempt and its two events; the others keep
			// theirs.
			assertThat(storage.retention().deleteFinished(JobStatus.SUCCEEDED, "old", NOW, 100)).isOne();
			assertThat(storage.admin().find(3)).isEmpty();
			assertThat(this.db.count("SELECT count(*) FROM queue.jq_job_attempts WHERE job_id = 3")).isZero();
			assertThat(this.db.count("SELECT count(*) FROM queue.jq_job_events WHERE job_id = 3")).isZero();
			assertThat(this.db.count("SELECT count(*) FROM queue.jq_job_attempts")).isEqualTo(4);
			assertThat(this.db.count("SELECT count(*) FROM queue.jq_job_events")).isEqualTo(6);

			// The running job whose lease expired is still taken back.
			assertThat(storage.jobs().recoverExpiredLeases(NOW, 100)).isOne();
			assertThat(storage.admin().find(2).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		}
	}

	@Test
	void aV8QueueCountsAttemptsFromTheIndexOfRetriedAndFailedJobs() throws SQLException {
		this.db.migrateTo("8");
		this.db.execute("""
				INSERT INTO queue.jq_jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at,
				                           started_at, finished_at, worker_id, lease_until, waiting_for)
				OVERRIDING SYSTEM VALUE VALUES
				(1, 'mail', 'pending', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, NULL, NULL, NULL, 0),
				(2, 'mail', 'pending', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, NULL, NULL, NULL, 0),
				(3, 'mail', 'pending', '{}', 1, 3, 1, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', NULL, NULL, NULL, 0),
				(4, 'mail', 'running', '{}', 2, 3, 2, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', NULL, 'w',
				 '2030-01-01T00:01:00Z', 0),
				(5, 'mail', 'failed', '{}', 3, 3, 3, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', 'w',
				 NULL, 0),
				(6, 'mail', 'failed', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, '2029-12-31Z', NULL, NULL, 0),
				(7, 'mail', 'succeeded', '{}', 1, 3, 1, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', '2029-12-31Z',
				 'w', NULL, 0),
				(8, 'report', 'pending', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, NULL, NULL, NULL, 0)
				""");
		this.db.execute("SELECT setval(pg_get_serial_sequence('queue.jq_jobs', 'id'), 8)");

		try (PostgresStorage storage = new PostgresStorage(new PostgresDatabase(this.db.dataSource(), "test"),
				TABLES)) {
			storage.initializeSchema();
			QueueSnapshot snapshot = storage.insights()
				.snapshot(NOW, new SnapshotSettings(Duration.ofMinutes(15), 10, Duration.ofMinutes(3), 10));

			assertThat(snapshot.retriesByType())
				.isEqualTo(Map.of("mail", Map.of(0, 3L, 1, 1L, 2, 1L, 3, 1L), "report", Map.of(0, 1L)));
			assertThat(this.db.text("SELECT string_agg(indexname, ',') FROM pg_indexes WHERE schemaname = 'queue' "
					+ "AND indexname IN ('jq_jobs_unfinished_attempts_idx', 'jq_jobs_retries_idx')"))
				.isEqualTo("jq_jobs_retries_idx");
		}
	}

}
