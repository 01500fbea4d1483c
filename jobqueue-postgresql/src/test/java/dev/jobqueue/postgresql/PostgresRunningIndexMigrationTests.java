package dev.jobqueue.postgresql;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.jobqueue.JobStatus;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue of schema V5 with jobs in every status migrates to V6 (running jobs indexed by
 * type, not by lease end): every job keeps its row and status, and a running job whose
 * lease expired is still taken back.
 */
@PostgresTest
class PostgresRunningIndexMigrationTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	private static final Tables TABLES = PostgresDialect.tables("queue", "jq_");

	@RegisterExtension
	final MigrationDatabase db = new MigrationDatabase(TABLES);

	@Test
	void aV5QueueWithJobsInEveryStatusKeepsThemAndRecoversAnExpiredLease() {
		this.db.migrateTo("5");
		this.db.execute(
				"""
						INSERT INTO queue.jq_jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at,
						                           started_at, finished_at, worker_id, lease_until, waiting_for)
						OVERRIDING SYSTEM VALUE VALUES
						(1, 'old', 'pending', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, NULL, NULL, NULL, 0),
						(2, 'old', 'running', '{}', 1, 3, 1, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', NULL, 'gone',
						 '2029-12-31T00:00:30Z', 0),
						(3, 'old', 'succeeded', '{}', 1, 3, 1, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', 'w',
						 NULL, 0),
						(4, 'old', 'failed', '{}', 3, 3, 3, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', 'w',
						 NULL, 0),
						(5, 'old', 'cancelled', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, '2029-12-31Z', NULL, NULL, 0),
						(6, 'old', 'waiting', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, NULL, NULL, NULL, 1)
						""");
		this.db.execute("SELECT setval(pg_get_serial_sequence('queue.jq_jobs', 'id'), 6)");

		try (PostgresStorage storage = new PostgresStorage(new PostgresDatabase(this.db.dataSource(), "test"),
				TABLES)) {
			storage.initializeSchema();
			List<JobStatus> statuses = new ArrayList<>();
			for (long id = 1; id <= 6; id++) {
				statuses.add(storage.admin().find(id).orElseThrow().status());
			}
			assertThat(statuses).containsExactly(JobStatus.PENDING, JobStatus.RUNNING, JobStatus.SUCCEEDED,
					JobStatus.FAILED, JobStatus.CANCELLED, JobStatus.WAITING);
			assertThat(storage.jobs().recoverExpiredLeases(NOW, 100)).isOne();
			assertThat(storage.admin().find(2).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		}
		assertThat(this.db.text("SELECT indexdef FROM pg_indexes WHERE schemaname = 'queue' "
				+ "AND indexname = 'jq_jobs_running_idx'"))
			.contains("(type)")
			.contains("'running'");
		assertThat(this.db
			.text("SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = 'queue.jq_jobs'::regclass"))
			.contains("fillfactor=70");
	}

}
