package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.jdbc.JdbcJobStore;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claim by rounds across keys reads index ranges with 1,000,000 due jobs over 10,000
 * keys, and a backlog of 100,000 jobs without a key beside them: each statement searches
 * {@code jobs_keyed_idx} (or the log's primary key) with a condition on its leading
 * columns, none scans a table or walks a whole index, none sorts.
 *
 * <p>
 * SQLite's planner reads the table's size from {@code sqlite_stat1}, not from the table:
 * the test writes there the rows {@code ANALYZE} wrote for a table of those 1,100,000
 * jobs (recorded from one), on a table that holds 11,000, so the plans are the ones the
 * planner picks at that size. The samples of {@code sqlite_stat4} are left out; at that
 * size the plans were the same with them.
 */
class SqliteFlowClaimPlanTests {

	static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	/**
	 * {@code sqlite_stat1} of the jobs table after {@code ANALYZE} of 1,000,000 due jobs
	 * over 10,000 keys and 100,000 due jobs without a key: index, then rows and rows per
	 * distinct value of each leading column.
	 */
	static final Map<String, String> STATISTICS_AT_A_MILLION_JOBS = Map.ofEntries(Map.entry("", "1100000"),
			Map.entry("jobs_cancelled_idx", "0 0"), Map.entry("jobs_chain_idx", "0 0 0 0"),
			Map.entry("jobs_claim_idx", "100000 100000 1 1"),
			Map.entry("jobs_claim_type_idx", "100000 100000 100000 1 1"), Map.entry("jobs_dedup_idx", "0 0"),
			Map.entry("jobs_due_idx", "1100000 1"), Map.entry("jobs_error_code_idx", "0 0 0 0"),
			Map.entry("jobs_failed_idx", "0 0"), Map.entry("jobs_finished_idx", "0 0 0 0"),
			Map.entry("jobs_key_idx", "1000000 100 1"), Map.entry("jobs_keyed_idx", "1000000 1000000 1000000 100 1 1"),
			Map.entry("jobs_retries_idx", "0 0 0 0"), Map.entry("jobs_running_idx", "0 0"),
			Map.entry("jobs_waiting_idx", "0 0"));

	@TempDir
	Path dir;

	@Test
	void everyStatementOfAKeyedClaimSearchesAnIndexAtAMillionDueJobsOverTenThousandKeys() throws SQLException {
		try (TestDatabase filled = TestDatabase.create(this.dir)) {
			try (Connection connection = filled.dataSource().getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute("""
						WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
						INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at, job_key)
						SELECT 'charge', 'pending', '{}', 3, %1$d - i, %1$d - i, 'customer-' || (i %% 1000) FROM n
						""".formatted(NOW.toEpochMilli()));
				statement.execute("""
						WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
						INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at)
						SELECT 'charge', 'pending', '{}', 3, %1$d - i, %1$d - i FROM n
						""".formatted(NOW.toEpochMilli()));
				statement.execute("ANALYZE");
				statement.execute("DELETE FROM sqlite_stat1 WHERE tbl = 'jobs'");
				statement.execute("DELETE FROM sqlite_stat4 WHERE tbl = 'jobs'");
				STATISTICS_AT_A_MILLION_JOBS.forEach((index, stat) -> {
					try {
						statement.execute("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('jobs', "
								+ (index.isEmpty() ? "NULL" : "'" + index + "'") + ", '" + stat + "')");
					}
					catch (SQLException ex) {
						throw new IllegalStateException(ex);
					}
				});
			}
		}
		// A connection reads the statistics when it opens the schema: a new pool.
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			assertThat(db.column("SELECT stat FROM sqlite_stat1 WHERE tbl = 'jobs' AND idx IS NULL"))
				.containsExactly("1100000");
			Map<String, String> statements = db.store().keyedClaimStatements();
			assertThat(statements).isNotEmpty();
			statements.forEach((name, sql) -> {
				List<String> plan = QueryPlans.of(db.dataSource(), sql);
				assertThat(plan).as(name)
					.anyMatch((step) -> step.contains("jobs_keyed_idx") || step.contains("job_rate_starts"))
					.allMatch(QueryPlans::searchesWithACondition)
					.noneMatch((step) -> step.contains("TEMP B-TREE"));
			});
			// A handler's start, and an unstarted start dropped: ranges of the rate log's
			// key.
			for (String template : List.of(JdbcJobStore.RECORD_HANDLER_START, JdbcJobStore.DROP_UNSTARTED_START)) {
				List<String> plan = QueryPlans.of(db.dataSource(), db.store().tables().sql(template).text());
				assertThat(plan).as(template)
					.anyMatch((step) -> step.contains("job_rate_starts"))
					.allMatch(QueryPlans::searchesWithACondition);
			}

			FlowControl flow = new FlowControl(RateLimit.parse("1000/1s"), null, 1, false, true);
			ClaimRequest request = new ClaimRequest("w1", 16, Set.of(), Map.of("charge", 16), Set.of(),
					NOW.plusSeconds(30), Map.of(), 16, Map.of("charge", flow));
			List<ClaimedJob> claimed = db.store().claim(request, NOW);
			assertThat(claimed).hasSize(16);
			assertThat(claimed.stream().filter((job) -> job.key() != null).map(ClaimedJob::key).distinct())
				.hasSize((int) claimed.stream().filter((job) -> job.key() != null).count());
		}
	}

}
