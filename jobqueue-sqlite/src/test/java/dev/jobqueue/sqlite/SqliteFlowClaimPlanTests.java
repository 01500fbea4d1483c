package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claim by rounds across keys reads index ranges with 1,000,000 due jobs over 10,000
 * keys, and a backlog of jobs without a key beside them: each statement searches
 * {@code jobs_keyed_idx} (or the log's primary key), none scans a table or sorts.
 */
class SqliteFlowClaimPlanTests {

	static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	@TempDir
	Path dir;

	@Test
	void everyStatementOfAKeyedClaimSearchesAnIndexAtAMillionDueJobsOverTenThousandKeys() throws SQLException {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			long insertStart = System.nanoTime();
			try (Connection connection = db.dataSource().getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute("""
						WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
						INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at, job_key)
						SELECT 'charge', 'pending', '{}', 3, %1$d - i, %1$d - i, 'customer-' || (i %% 10000) FROM n
						""".formatted(NOW.toEpochMilli()));
				statement.execute("""
						WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
						INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at)
						SELECT 'charge', 'pending', '{}', 3, %1$d - i, %1$d - i FROM n
						""".formatted(NOW.toEpochMilli()));
				statement.execute("ANALYZE");
			}
			System.out.printf("Inserted 1,100,000 due jobs in %d ms%n", (System.nanoTime() - insertStart) / 1_000_000);
			Map<String, String> statements = db.store().keyedClaimStatements();
			assertThat(statements).isNotEmpty();
			statements.forEach((name, sql) -> {
				List<String> plan = queryPlan(db, sql);
				System.out.println(name + ": " + plan);
				assertThat(plan).as(name)
					.anyMatch((step) -> step.contains("jobs_keyed_idx") || step.contains("job_rate_starts"))
					.noneMatch((step) -> step.matches("SCAN (jobs|job_rate_starts)( |$)(?!USING).*"))
					.noneMatch((step) -> step.contains("TEMP B-TREE"));
			});

			FlowControl flow = new FlowControl(RateLimit.parse("1000/1s"), null, 1, false, true);
			ClaimRequest request = new ClaimRequest("w1", 16, Set.of(), Map.of("charge", 16), Set.of(),
					NOW.plusSeconds(30), Map.of(), 16, Map.of("charge", flow));
			long claimStart = System.nanoTime();
			List<ClaimedJob> claimed = db.store().claim(request, NOW);
			long claimMicros = (System.nanoTime() - claimStart) / 1000;
			System.out.printf("A claim of 16 with a key concurrency of 1: %d us%n", claimMicros);
			assertThat(claimed).hasSize(16);
			assertThat(claimed.stream().filter((job) -> job.key() != null).map(ClaimedJob::key).distinct())
				.hasSize((int) claimed.stream().filter((job) -> job.key() != null).count());
		}
	}

	private static List<String> queryPlan(TestDatabase db, String sql) {
		List<String> plan = new ArrayList<>();
		try (Connection connection = db.dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
			while (rows.next()) {
				plan.add(rows.getString("detail"));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		return plan;
	}

}
