package dev.jobqueue.postgresql;

import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.jdbc.FlowClaims;
import dev.jobqueue.jdbc.JdbcJobStore;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of the claim by rounds across keys on a table of due jobs with keys (200,000
 * here over 10,000 keys; 1,000,000 with {@code -Djobqueue.test.plans.jobs=1000000}), and
 * 50,000 due jobs without a key beside them, with generic plans as the server uses for
 * prepared statements: the skip-scan over keys, each key's state and jobs, and the
 * one-statement claim's probe for keyed jobs read index ranges of {@code jobs_keyed_idx}
 * (each an index scan with an {@code Index Cond}), never the table nor a whole index.
 * Each plan is printed.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresFlowClaimPlanTests {

	private static final int DUE = Integer.getInteger("jobqueue.test.plans.jobs", 200_000);

	private static final int KEYS = 10_000;

	private PostgresTestDatabase db;

	private QueryPlans plans;

	private final Instant now = Instant.parse("2030-01-10T00:00:00Z");

	@BeforeAll
	void fillTheTable() {
		this.db = PostgresTestDatabase.create();
		this.plans = new QueryPlans(this.db, DUE + " due jobs with a key over " + KEYS + " keys");
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at, job_key)
				SELECT 'charge', 'pending', 0, '{}', 3, t, t, 'customer-' || (i % ?)
				FROM generate_series(1, ?) i, LATERAL (SELECT timestamptz '2030-01-01' + i * interval '100 ms') s(t)
				""", KEYS, DUE);
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, attempts, max_attempts, runs, run_at, created_at,
				                  started_at, heartbeat_at, lease_until, worker_id, job_key)
				SELECT 'charge', 'running', 0, '{}', 1, 3, 1, t, t, t, t, t + interval '1 day', 'w1', 'customer-' || i
				FROM generate_series(1, 500) i, LATERAL (SELECT timestamptz '2030-01-09' + i * interval '1 s') s(t)
				""");
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at)
				SELECT 'charge', 'pending', 0, '{}', 3, t, t
				FROM generate_series(1, 50000) i, LATERAL (SELECT timestamptz '2030-01-02' + i * interval '1 s') s(t)
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
	void aClaimByRoundsReadsKeysStatesAndJobsFromTheKeyedIndex() throws SQLException {
		// Without flow control: fairness only, 128 keys visited.
		List<String> fair = explain(PostgresClaims.claimSql(PostgresClaims.READ_FOR_ROUNDS, false),
				read(FlowControl.NONE, 128, null));
		assertReadsIndexes(fair);
		// A key concurrency of 1, order per key and a rate limit per key and per type.
		FlowControl limited = new FlowControl(RateLimit.parse("1000/1s"), RateLimit.parse("10/1m"), 1, true, true);
		List<String> held = explain(PostgresClaims.claimSql(PostgresClaims.READ_FOR_ROUNDS, false),
				read(limited, 16, "customer-5000"));
		assertReadsIndexes(held);
		// The rate log's starts of a key in the window: a range of its primary key.
		assertThat(this.plans.fullScans(held, "job_rate_starts", "job_rate_starts_")).as(String.join("\n", held))
			.isEmpty();
		assertThat(held).anyMatch((line) -> line.contains("job_rate_starts_pkey"))
			// A key's running and failed jobs: its ranges, not all of the type's.
			.anyMatch((line) -> line.matches(".*Index Only Scan using jobs_keyed_idx on jobs r(_\\d+)? .*"))
			.anyMatch((line) -> line.matches(".*Index Only Scan using jobs_keyed_idx on jobs f(_\\d+)? .*"))
			.noneMatch(
					(line) -> line.contains("jobs_retries_idx") || line.contains("jobs_failed_cancelled_waiting_idx"));
		// The claim-ahead part: only jobs with an attempt left.
		assertReadsIndexes(explain(PostgresClaims.claimSql(PostgresClaims.READ_FOR_ROUNDS, true),
				read(FlowControl.NONE, 128, "customer-42")));
	}

	@Test
	void aHandlersStartIsWrittenAndAnUnstartedOneDroppedByRangesOfTheRateLogsPrimaryKey() throws SQLException {
		Map<String, Object> run = Map.of("type", "charge", "key", "customer-5", "claimed_at", this.now, "lease_until",
				this.now.plusSeconds(30), "job_id", 5L);
		Map<String, Object> started = new HashMap<>(run);
		started.put("now", this.now);
		for (List<String> plan : List.of(explain(JdbcJobStore.RECORD_HANDLER_START, started),
				explain(JdbcJobStore.DROP_UNSTARTED_START, run))) {
			assertThat(this.plans.fullScans(plan, "job_rate_starts", "job_rate_starts_")).as(String.join("\n", plan))
				.isEmpty();
			assertThat(plan).anyMatch((line) -> line.contains("job_rate_starts_pkey"));
		}
	}

	@Test
	void theOneStatementClaimProbesTheKeyedIndexOnce() throws SQLException {
		List<String> one = explain(PostgresClaims.claimSql(PostgresClaims.CLAIM_DUE, false),
				Map.of("type", "charge", "worker_id", "w", "now", this.now, "lease_until", this.now.plusSeconds(30),
						"not_repeatable", Set.of(), "limit", 128));
		assertThat(one).anyMatch((line) -> line.contains("jobs_keyed_idx"))
			.noneMatch((line) -> line.contains("Seq Scan on jobs"));
		this.plans.assertSearchesOnly(one);
		List<String> several = explain(PostgresClaims.claimSql(PostgresClaims.CLAIM_BY_TYPE, false),
				Map.of("types", new String[] { "charge", "mail" }, "rooms", new Integer[] { 100, 100 }, "global_caps",
						new Integer[] { null, null }, "worker_id", "w", "now", this.now, "lease_until",
						this.now.plusSeconds(30), "not_repeatable", Set.of(), "limit", 100));
		assertThat(several).anyMatch((line) -> line.contains("jobs_keyed_idx"))
			.noneMatch((line) -> line.contains("Seq Scan on jobs"));
		this.plans.assertSearchesOnly(several);
	}

	@Test
	void theTakeFindsTheChosenJobsByPrimaryKeyAndOrderedKeysHeadsInTheKeyedIndex() throws SQLException {
		List<Long> ids = this.db.column("SELECT id FROM jobs WHERE status = 'pending' ORDER BY id LIMIT 16")
			.stream()
			.map((id) -> ((Number) id).longValue())
			.toList();
		List<String> take = explain(PostgresClaims.TAKE_BY_IDS, Map.ofEntries(
				Map.entry("ids", ids.toArray(new Long[0])), Map.entry("worker_id", "w"), Map.entry("now", this.now),
				Map.entry("lease_until", this.now.plusSeconds(30)), Map.entry("not_repeatable", Set.of()),
				Map.entry("ordered_heads", ids.subList(0, 4).toArray(new Long[0])),
				Map.entry("start_types", new String[] { "charge" }), Map.entry("start_keys", new String[] { "" }),
				Map.entry("start_ids", new Long[] { ids.get(0) }), Map.entry("sweep_types", new String[] { "charge" }),
				Map.entry("sweep_windows", new Long[] { 60_000L })));
		assertThat(take).anyMatch((line) -> line.contains("Index Scan using jobs_pkey on jobs j"))
			.anyMatch((line) -> line.contains("Index Scan using jobs_pkey on jobs c"))
			// An ordered key's job is still the first pending one of its key.
			.anyMatch((line) -> line.contains("Index Only Scan using jobs_keyed_idx on jobs h"))
			.noneMatch((line) -> line.contains("Seq Scan on jobs") || line.contains("jobs_claim_idx"));
		this.plans.assertSearchesOnly(take);
	}

	@Test
	void aClaimWithAKeyConcurrencyOfOneTakesOneJobEachOfKeysThatRunNothing() {
		FlowControl flow = new FlowControl(null, null, 1, false, true);
		ClaimRequest request = new ClaimRequest("w9", 16, Set.of(), Map.of("charge", 16), Set.of(),
				this.now.plusSeconds(30), Map.of(), 16, Map.of("charge", flow));
		try (PostgresStorage storage = this.db.storage()) {
			long start = System.nanoTime();
			List<ClaimedJob> claimed = storage.jobs().claim(request, this.now);
			System.out.printf("A claim of 16 with a key concurrency of 1 over %,d due jobs: %d us%n", DUE,
					(System.nanoTime() - start) / 1000);
			List<String> keys = claimed.stream().map(ClaimedJob::key).filter((key) -> key != null).toList();
			assertThat(claimed).hasSize(16);
			assertThat(keys).doesNotHaveDuplicates();
			// Keys 1 to 500 each have a running job.
			assertThat(keys).allMatch(
					(key) -> Integer.parseInt(key.substring("customer-".length())) > 500 || key.equals("customer-0"));
		}
	}

	private Map<String, Object> read(FlowControl flow, int room, String cursor) {
		return Map.ofEntries(Map.entry("types", new String[] { "charge" }), Map.entry("rooms", new Integer[] { room }),
				Map.entry("global_caps", new Integer[] { null }), Map.entry("cursors", new String[] { cursor }),
				Map.entry("visits", new Integer[] { FlowClaims.keysToVisit(room, flow) }),
				Map.entry("ordered", new Boolean[] { flow.ordered() }),
				Map.entry("key_concurrency", new Integer[] { flow.keyConcurrency() }),
				Map.entry("read_running", new Boolean[] { flow.runningPerKey() > 0 }),
				Map.entry("read_failed", new Boolean[] { flow.ordered() && flow.blockOnFailure() }),
				Map.entry("type_window",
						new Long[] { (flow.rateLimit() != null) ? flow.rateLimit().window().toMillis() : null }),
				Map.entry("key_window",
						new Long[] { (flow.keyRateLimit() != null) ? flow.keyRateLimit().window().toMillis() : null }),
				Map.entry("serialised", new Boolean[] { flow.limits() }), Map.entry("now", this.now));
	}

	private void assertReadsIndexes(List<String> plan) {
		assertThat(plan).anyMatch((line) -> line.contains("Index Only Scan using jobs_keyed_idx"))
			.anyMatch((line) -> line.contains("Index Scan using jobs_keyed_idx on jobs c"))
			.anyMatch((line) -> line.contains("Index Scan using jobs_claim_type_idx on jobs c"))
			.noneMatch((line) -> line.contains("Seq Scan on jobs"));
		this.plans.assertSearchesOnly(plan);
	}

	private List<String> explain(String template, Map<String, Object> parameters) throws SQLException {
		return this.plans.explain(template, parameters);
	}

}
