package dev.jobqueue.mysql;

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.mysql.testing.MariaDbTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue of schema V3 (keys on jobs, before flow control) migrates to V5: the claim
 * index and the running index take the key, the log of starts is there, and a claim under
 * a key limit sees the jobs the old schema held.
 */
@MariaDbTest
class MysqlFlowControlMigrationTests {

	private static final Tables TABLES = MysqlDialect.tables("jq_");

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	@RegisterExtension
	final MigrationDatabase db = new MigrationDatabase(TABLES);

	@Test
	void aV3QueuesKeyedJobsAreClaimedUnderTheirLimitsAfterTheMigration() throws SQLException {
		this.db.migrateTo("3");
		long before = NOW.minusSeconds(60).toEpochMilli();
		this.db.execute("""
				INSERT INTO jq_jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at,
				                     finished_at, job_key, worker_id, lease_until)
				VALUES (1, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL),
				       (2, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, 'a', NULL, NULL),
				       (3, 'mail', 'running', '{}', 1, 3, 1, %1$d, %1$d, NULL, 'b', 'w0', %2$d),
				       (4, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, 'b', NULL, NULL),
				       (5, 'mail', 'failed', '{}', 3, 3, 3, %1$d, %1$d, %1$d, 'c', NULL, NULL)
				""".formatted(before, NOW.plusSeconds(30).toEpochMilli()));

		MysqlStorage storage = this.db.storage();
		{
			storage.initializeSchema();
			assertThat(indexColumns("jq_jobs_claim_type_idx")).containsExactly("status", "type", "job_key", "priority",
					"run_at", "id");
			assertThat(indexColumns("jq_jobs_keyed_idx")).containsExactly("status", "type", "job_key", "id", "run_at",
					"priority");
			assertThat(indexColumns("jq_jobs_running_idx")).isEmpty();
			assertThat(this.db.count("SELECT count(*) FROM jq_job_rate_starts")).isZero();

			FlowControl oneAtATime = new FlowControl(null, null, 1, false, true);
			ClaimRequest request = new ClaimRequest("w1", 10, Set.of(), Map.of("mail", 10), Set.of(),
					NOW.plusSeconds(30), Map.of(), 10, Map.of("mail", oneAtATime));
			assertThat(storage.jobs().claim(request, NOW)).extracting(ClaimedJob::id).containsExactly(1L, 2L);
		}
	}

	private List<String> indexColumns(String index) throws SQLException {
		List<String> columns = new ArrayList<>();
		try (var connection = this.db.dataSource().getConnection();
				var select = connection.prepareStatement("SELECT column_name FROM information_schema.statistics "
						+ "WHERE table_schema = ? AND table_name = 'jq_jobs' AND index_name = ? ORDER BY seq_in_index")) {
			select.setString(1, this.db.name());
			select.setString(2, index);
			try (var rows = select.executeQuery()) {
				while (rows.next()) {
					columns.add(rows.getString(1));
				}
			}
		}
		return columns;
	}

}
