package dev.jobqueue.postgresql;

import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue of schema V11 (keys on jobs, before flow control) migrates to V13: the claim
 * index of one type holds its pending jobs without a key only, the keyed index holds the
 * pending, running and failed jobs with a key, and a claim under a key limit sees them
 * all. In a schema of its own with a table prefix.
 */
@PostgresTest
class PostgresFlowControlMigrationTests {

	private static final Tables TABLES = PostgresDialect.tables("queue", "jq_");

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	@RegisterExtension
	final MigrationDatabase db = new MigrationDatabase(TABLES);

	@Test
	void keyedJobsMoveToTheKeyedIndexAndClaimsSeeThem() throws SQLException {
		this.db.migrateTo("11");
		this.db.execute(
				"""
						INSERT INTO queue.jq_jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at,
						                           finished_at, waiting_for, job_key, worker_id, lease_until)
						OVERRIDING SYSTEM VALUE VALUES
						(1, 'mail', 'pending', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, 0, NULL, NULL, NULL),
						(2, 'mail', 'pending', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, 0, 'a', NULL, NULL),
						(3, 'mail', 'running', '{}', 1, 3, 1, '2029-12-31Z', '2029-12-31Z', NULL, 0, 'b', 'w0', '2030-01-01T00:01Z'),
						(4, 'mail', 'pending', '{}', 0, 3, 0, '2029-12-31Z', '2029-12-31Z', NULL, 0, 'b', NULL, NULL),
						(5, 'mail', 'failed', '{}', 3, 3, 3, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', 0, 'c', NULL, NULL),
						(6, 'mail', 'succeeded', '{}', 1, 3, 1, '2029-12-31Z', '2029-12-31Z', '2029-12-31Z', 0, 'a', NULL, NULL)
						""");
		this.db.execute("SELECT setval(pg_get_serial_sequence('queue.jq_jobs', 'id'), 6)");

		try (PostgresStorage storage = this.db.storage()) {
			storage.initializeSchema();
			assertThat(this.db.text("SELECT indexdef FROM pg_indexes WHERE schemaname = 'queue' "
					+ "AND indexname = 'jq_jobs_claim_type_idx'"))
				.contains("(type, priority DESC, run_at, id)")
				.contains("job_key IS NULL");
			assertThat(this.db.text("SELECT indexdef FROM pg_indexes WHERE schemaname = 'queue' "
					+ "AND indexname = 'jq_jobs_keyed_idx'"))
				.contains("(type, status, job_key, id, run_at)");
			// The builds counted the entries they wrote.
			assertThat(
					this.db.text("SELECT string_agg(c.relname || '=' || c.reltuples::bigint, ',' ORDER BY c.relname) "
							+ "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'queue' "
							+ "AND c.relname IN ('jq_jobs_claim_type_idx', 'jq_jobs_keyed_idx')"))
				.isEqualTo("jq_jobs_claim_type_idx=1,jq_jobs_keyed_idx=4");
			assertThat(this.db.count("SELECT count(*) FROM queue.jq_job_rate_starts")).isZero();

			FlowControl oneAtATime = new FlowControl(null, null, 1, false, true);
			ClaimRequest request = new ClaimRequest("w1", 10, Set.of(), Map.of("mail", 10), Set.of(),
					NOW.plusSeconds(30), Map.of(), 10, Map.of("mail", oneAtATime));
			assertThat(storage.jobs().claim(request, NOW)).extracting(ClaimedJob::id).containsExactly(1L, 2L);
		}
	}

}
