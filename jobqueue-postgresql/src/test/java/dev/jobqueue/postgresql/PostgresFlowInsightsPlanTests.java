package dev.jobqueue.postgresql;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.QueueInsights.KeyQuery;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.core.store.QueueSnapshot.FlowState;
import dev.jobqueue.jdbc.JdbcQueueInsights;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans and the cost of the counts of held jobs and of the key list, at 100,000 due
 * jobs with a key over 1,000 keys (plus 100 running and 10 failed) beside 50,000 due jobs
 * without one and 500,000 succeeded jobs, with generic plans as the server uses for
 * prepared statements: each reads an index range ({@code jobs_keyed_idx},
 * {@code jobs_claim_type_idx}, the rate log's primary key) with a condition, never the
 * table nor a whole index. Plans and times are printed; times are not asserted (the
 * benchmarks measure time).
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresFlowInsightsPlanTests {

	private static final SnapshotSettings SETTINGS = new SnapshotSettings(Duration.ofMinutes(15), 10,
			Duration.ofMinutes(3), 10);

	private PostgresTestDatabase db;

	private QueryPlans plans;

	private final Instant now = Instant.parse("2030-01-10T00:00:00Z");

	@BeforeAll
	void fillTheTable() {
		this.db = PostgresTestDatabase.create();
		this.plans = new QueryPlans(this.db,
				"100,000 due jobs with a key over 1,000 keys, 50,000 without, 500,000 succeeded");
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at, job_key)
				SELECT 'charge', 'pending', 0, '{}', 3, t, t, 'customer-' || (i % 1000)
				FROM generate_series(1, 100000) i, LATERAL (SELECT timestamptz '2030-01-01' + i * interval '1 s') s(t)
				""");
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, attempts, max_attempts, runs, run_at, created_at,
				                  started_at, heartbeat_at, lease_until, worker_id, job_key)
				SELECT 'charge', 'running', 0, '{}', 1, 3, 1, t, t, t, t, t + interval '1 day', 'w1', 'customer-' || i
				FROM generate_series(1, 100) i, LATERAL (SELECT timestamptz '2030-01-09' + i * interval '1 s') s(t)
				""");
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, attempts, max_attempts, runs, run_at, created_at,
				                  started_at, finished_at, error_code, job_key)
				SELECT 'charge', 'failed', 0, '{}', 3, 3, 3, t, t, t, t, 'PAYMENT:DECLINED', 'customer-' || (i * 7)
				FROM generate_series(1, 10) i, LATERAL (SELECT timestamptz '2030-01-09' + i * interval '1 s') s(t)
				""");
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at)
				SELECT 'charge', 'pending', 0, '{}', 3, t, t
				FROM generate_series(1, 50000) i, LATERAL (SELECT timestamptz '2030-01-02' + i * interval '1 s') s(t)
				""");
		// The finished jobs a queue keeps (retention): most of the table.
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, attempts, max_attempts, runs, run_at, created_at,
				                  started_at, finished_at, job_key)
				SELECT 'charge', 'succeeded', 0, '{}', 1, 3, 1, t, t, t, t, 'customer-' || (i % 1000)
				FROM generate_series(1, 500000) i, LATERAL (SELECT timestamptz '2029-12-01' + i * interval '1 s') s(t)
				""");
		this.db.execute("""
				INSERT INTO job_rate_starts (type, job_key, started_at, job_id)
				SELECT 'charge', CASE WHEN i % 2 = 0 THEN '' ELSE 'customer-' || (i % 100) END,
				       timestamptz '2030-01-09T23:59:59' + i * interval '1 ms', i
				FROM generate_series(1, 900) i
				""");
		this.db.execute("VACUUM ANALYZE");
	}

	@AfterAll
	void dropDatabase() {
		this.db.close();
	}

	@Test
	void everyCountReadsAnIndexRangeNeverTheTable() throws SQLException {
		Map<String, String> statements = new TreeMap<>(
				((JdbcQueueInsights) this.db.storage().insights()).flowStatements());
		assertThat(statements).hasSize(6);
		for (Map.Entry<String, String> statement : statements.entrySet()) {
			List<String> plan = this.plans.explain(statement.getKey(), statement.getValue(),
					(parameter) -> switch (parameter) {
						case "now", "since" -> this.now.minusSeconds(60);
						case "status" -> "running";
						case "key" -> "";
						default -> "charge";
					});
			this.plans.assertSearchesOnly(plan);
			if (statement.getValue().contains("job_key IS NOT NULL")) {
				assertThat(plan).as(statement.getKey())
					.anyMatch((line) -> line.contains("Index Only Scan using jobs_keyed_idx"));
			}
		}
	}

	@Test
	void countsTheDueJobsAndBlockedKeysOfALargeQueueAndPrintsTheirCostBesideTheSnapshot() {
		QueueInsights insights = this.db.storage().insights();
		FlowControl flow = new FlowControl(RateLimit.parse("1000/1s"), null, 1, true, true);
		SnapshotSettings withFlow = SETTINGS.withFlowControls(Map.of("charge", flow));
		FlowState state = insights.snapshot(this.now, withFlow).flow().get("charge");
		assertThat(state.due()).isEqualTo(150_000);
		assertThat(state.blockedKeys()).isEqualTo(10);
		long without = bestOf(5, () -> insights.snapshot(this.now, SETTINGS));
		long with = bestOf(5, () -> insights.snapshot(this.now, withFlow));
		long counts = bestOf(5, () -> insights.flow(this.now, Map.of("charge", flow)));
		long keys = bestOf(5, () -> insights.keys(new KeyQuery("charge", flow, this.now, 10)));
		System.out.printf("PostgreSQL, 100,000 due keyed jobs over 1,000 keys, 50,000 without a key and 500,000 "
				+ "succeeded: snapshot "
				+ "%d ms without flow counts, %d ms with; flow counts alone %d ms; key list %d ms (best of 5)%n",
				without, with, counts, keys);
	}

	private static long bestOf(int runs, Runnable read) {
		long best = Long.MAX_VALUE;
		for (int i = 0; i < runs; i++) {
			long start = System.nanoTime();
			read.run();
			best = Math.min(best, (System.nanoTime() - start) / 1_000_000);
		}
		return best;
	}

}
