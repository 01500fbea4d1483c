package dev.jobqueue.postgresql;

import java.sql.SQLException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.core.store.QueueInsights.JobSummary;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A queue of schema V10 migrates to V11 (a key on a job): its jobs keep their rows with
 * no key and no entry in the partial key index, and a job given a key afterwards is
 * listed by it. In a schema of its own with a table prefix.
 */
@PostgresTest
class PostgresJobKeyMigrationTests {

	private static final Tables TABLES = PostgresDialect.tables("queue", "jq_");

	@RegisterExtension
	final MigrationDatabase db = new MigrationDatabase(TABLES);

	@Test
	void aV10QueuesJobsHaveNoKeyAndNoEntryInTheKeyIndex() throws SQLException {
		this.db.migrateTo("10");
		this.db.execute("""
				INSERT INTO queue.jq_jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at,
				                           finished_at, waiting_for)
				OVERRIDING SYSTEM VALUE VALUES
				(1, 'mail', 'pending', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, 0),
				(2, 'mail', 'succeeded', '{}', 1, 3, 1, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', 0)
				""");
		this.db.execute("SELECT setval(pg_get_serial_sequence('queue.jq_jobs', 'id'), 2)");

		try (PostgresStorage storage = new PostgresStorage(new PostgresDatabase(this.db.dataSource(), "test"),
				TABLES)) {
			storage.initializeSchema();
			assertThat(this.db.text("SELECT count(*) FROM queue.jq_jobs WHERE job_key IS NULL")).isEqualTo("2");
			assertThat(this.db.text("SELECT indexdef FROM pg_indexes WHERE schemaname = 'queue' "
					+ "AND indexname = 'jq_jobs_key_idx'"))
				.contains("(job_key, id)")
				.contains("WHERE (job_key IS NOT NULL)");
			// The build counted the entries it wrote: none, as no old job has a key.
			assertThat(this.db
				.text("SELECT reltuples::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
						+ "WHERE n.nspname = 'queue' AND c.relname = 'jq_jobs_key_idx'"))
				.isEqualTo("0");
			this.db.execute("UPDATE queue.jq_jobs SET job_key = 'customer-1' WHERE id = 2");
			assertThat(storage.insights().jobs(new JobQuery(null, null, null, "customer-1", null, 10)).jobs())
				.extracting(JobSummary::id, JobSummary::key)
				.containsExactly(tuple(2L, "customer-1"));
			assertThat(storage.admin().find(1).orElseThrow().key()).isNull();
		}
	}

}
