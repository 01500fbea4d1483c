package dev.jobqueue.postgresql;

import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.jdbc.FinishedCounts;
import dev.jobqueue.jdbc.OutcomeMinutes;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of the hot statements on a table of finished jobs (200,000 here; 1,000,000
 * with {@code -Djobqueue.test.plans.jobs=1000000}, the figures in
 * {@code docs/postgresql.md}), with generic plans, as the server uses for prepared
 * statements: none reads the finished bulk. Every read of the jobs is a search of an
 * index with a condition ({@link QueryPlans#assertSearchesOnly}), except the walks of a
 * whole index that a statement makes by design, each named with its reason. Each plan is
 * printed.
 */
@PostgresTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresQueryPlanTests {

	private static final int FINISHED = Integer.getInteger("jobqueue.test.plans.jobs", 200_000);

	/**
	 * Why a statement about running jobs walks all of them: {@code jobs_running_idx}
	 * holds running jobs only, by type, without their lease or heartbeat, so that a
	 * renewal writes no index; running jobs are at most the workers' handler threads.
	 */
	private static final String RUNNING_JOBS_WALKED = "reads every running job from jobs_running_idx, which holds no "
			+ "times so that a renewal writes no index entry; running jobs are at most the workers' threads";

	private PostgresTestDatabase db;

	private QueryPlans plans;

	private final Instant now = Instant.parse("2030-01-10T00:00:00Z");

	@BeforeAll
	void fillTheTable() {
		this.db = PostgresTestDatabase.create();
		this.plans = new QueryPlans(this.db, FINISHED + " finished jobs");
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, attempts, max_attempts, runs, run_at, created_at,
				                  started_at, finished_at, worker_id, error_code)
				SELECT 'type' || (i % 10), CASE WHEN i % 50 = 0 THEN 'failed' ELSE 'succeeded' END, 0, '{}', 1, 3, 1,
				       t, t, t, t + interval '1 s', 'w1', CASE WHEN i % 50 = 0 THEN 'X:Y' END
				FROM generate_series(1, ?) i, LATERAL (SELECT timestamptz '2030-01-01' + i * interval '100 ms') s(t)
				""", FINISHED);
		this.db.execute("""
				INSERT INTO job_events (job_id, at, event) SELECT id, created_at, 'ENQUEUED' FROM jobs
				""");
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at)
				SELECT 'type' || (i % 10), 'pending', i % 3, '{}', 3, timestamptz '2030-01-09' + i * interval '1 s',
				       timestamptz '2030-01-09'
				FROM generate_series(1, 5000) i
				""");
		this.db.execute("""
				INSERT INTO jobs (type, status, priority, payload, attempts, max_attempts, runs, run_at, created_at,
				                  started_at, heartbeat_at, lease_until, worker_id)
				SELECT 'type' || (i % 10), 'running', 0, '{}', 1, 3, 1, t, t, t, t, t + interval '30 s', 'w2'
				FROM generate_series(1, 40) i, LATERAL (SELECT timestamptz '2030-01-09T23:59' + i * interval '1 s') s(t)
				""");
		// A fan-out of 10,000 running children and the join waiting for them.
		this.db.execute(
				"""
						INSERT INTO jobs (type, status, priority, payload, attempts, max_attempts, runs, run_at, created_at,
						                  started_at, heartbeat_at, lease_until, worker_id, chain_index)
						SELECT 'row', 'running', 0, '{}', 1, 3, 1, t, t, t, t, t + interval '1 day', 'w3', 0
						FROM generate_series(1, 10000) i, LATERAL (SELECT timestamptz '2030-01-09T23:00' + i * interval '1 ms') s(t)
						""");
		this.db.execute("""
				INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at, chain_index, waiting_for,
				                  dependency_policy)
				VALUES ('summary', 'waiting', '{}', 3, timestamptz '2030-01-09', timestamptz '2030-01-09', 1, 10000,
				        'cancel')
				""");
		this.db.execute(
				"""
						UPDATE jobs SET chain_id = (SELECT min(id) FROM jobs WHERE type = 'row') WHERE type IN ('row', 'summary')
						""");
		this.db.execute("""
				INSERT INTO job_dependencies (depends_on, job_id)
				SELECT r.id, s.id FROM jobs r, jobs s WHERE r.type = 'row' AND s.type = 'summary'
				""");
		// 3,000 finished chains of three steps, older than the fan-out.
		this.db.execute("""
				INSERT INTO jobs (type, status, payload, max_attempts, runs, run_at, created_at, finished_at, chain_id,
				                  chain_index)
				SELECT 'step', 'succeeded', '{}', 3, 1, t, t, t + interval '1 s', -i, k
				FROM generate_series(1, 3000) i, generate_series(0, 2) k,
				     LATERAL (SELECT timestamptz '2030-01-02' + i * interval '1 s') s(t)
				""");
		this.db.execute("UPDATE jobs SET chain_id = id WHERE chain_index = 0 AND chain_id < 0");
		this.db.execute("""
				UPDATE jobs s SET chain_id = f.id FROM jobs f
				WHERE s.chain_id < 0 AND f.type = 'step' AND f.chain_index = 0 AND f.created_at = s.created_at
				""");
		// Other jobs waiting (joins of fan-outs still running): settling one join reads
		// none of them.
		this.db.execute(
				"""
						INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at, waiting_for, dependency_policy)
						SELECT 'other-summary', 'waiting', '{}', 3, timestamptz '2030-01-09', timestamptz '2030-01-09', 2, 'run'
						FROM generate_series(1, 5000) i
						""");
		// A week of runs ended per minute, from four writers.
		this.db.execute("""
				INSERT INTO job_outcome_minutes (minute, shard, succeeded, retried, failed)
				SELECT 29000000 + m, s, 100, 1, 1 FROM generate_series(1, 10080) m, generate_series(1, 4) s
				""");
		// A key on every fourth finished job, of 1,000 customers.
		this.db.execute("UPDATE jobs SET job_key = 'customer-' || (id % 1000) WHERE id % 4 = 0 AND id <= ?", FINISHED);
		// The finished jobs put in above, counted as the migration that keeps their
		// counts does.
		Tables tables = this.db.storage().tables();
		FinishedCounts.RECOUNT.forEach((sql) -> this.db.execute(tables.expand(sql)));
		this.db.execute("VACUUM ANALYZE");
	}

	@Test
	void finishingOneChildOfAWideFanInUpdatesItsJoinThroughTheDependencyKey() throws SQLException {
		long child = (long) this.db.column("SELECT min(id) FROM jobs WHERE type = 'row'").get(0);
		List<String> plan = explain(PostgresLinks.SETTLE,
				Map.of("ids", new Long[] { child }, "statuses", new String[] { "succeeded" }, "now", this.now));
		assertThat(plan).anyMatch((line) -> line.contains("using job_dependencies_pkey on job_dependencies"))
			.anyMatch((line) -> line.contains("Index Scan using jobs_pkey on jobs"))
			.noneMatch((line) -> line.contains("Seq Scan"))
			.noneMatch((line) -> line.contains("Index Cond: (status = 'waiting'::text)"));
		this.plans.assertSearchesOnly(plan);
		// The completion asks whether anybody waits for the job: one probe of the same
		// key.
		List<String> completion = explain(PostgresCompletions.MARK_SUCCEEDED, Map.of("ids", new Long[] { child },
				"runs", new Integer[] { 1 }, "results", new String[] { null }, "now", this.now, "worker_id", "w3"));
		assertThat(completion).anyMatch((line) -> line.contains("using job_dependencies_pkey on job_dependencies"))
			.noneMatch((line) -> line.matches(".*Seq Scan on (jobs|job_dependencies) .*"));
		this.plans.assertSearchesOnly(completion);
	}

	@Test
	void chainsAreReadFromTheirIndexes() throws SQLException {
		long chain = (long) this.db.column("SELECT min(id) FROM jobs WHERE type = 'row'").get(0);
		List<String> steps = explain(PostgresQueueInsights.STATEMENTS.chainSteps,
				Map.of("chain_id", chain, "limit", 100));
		assertThat(steps).anyMatch((line) -> line.contains("jobs_chain_idx"));
		this.plans.assertSearchesOnly(steps);
		List<String> retention = explain(PostgresRetentionStore.DELETE_FINISHED_CHAINS, Map.of("succeeded_before",
				this.now, "failed_before", this.now, "cancelled_before", this.now, "limit", 100));
		assertThat(retention).anyMatch((line) -> line.contains("jobs_chain_idx"));
		// No index tells a chain whose jobs have all finished: retention walks the
		// chained
		// jobs in chain order, grouped, until it has :limit such chains (here past the
		// 10,000 jobs of the running fan-out). A pass that finds fewer reads every
		// chained
		// job; the deletion itself searches.
		this.plans.assertSearchesOnlyBesideWalksOf(retention,
				"DELETE_FINISHED_CHAINS: the search for whole finished chains walks jobs_chain_idx", "jobs_chain_idx");
	}

	@AfterAll
	void dropDatabase() {
		this.db.close();
	}

	@Test
	void claimsReadPendingJobsInClaimOrderFromTheirPartialIndexes() throws SQLException {
		claimsReadPendingJobsInClaimOrderFromTheirPartialIndexes(false);
		// The claim-ahead part: only jobs with an attempt left, still on the indexes.
		claimsReadPendingJobsInClaimOrderFromTheirPartialIndexes(true);
	}

	private void claimsReadPendingJobsInClaimOrderFromTheirPartialIndexes(boolean attemptLeft) throws SQLException {
		List<String> several = explain(PostgresClaims.claimSql(PostgresClaims.CLAIM_BY_TYPE, attemptLeft),
				Map.of("types", new String[] { "type1", "type2", "type3" }, "rooms", new Integer[] { 100, 100, 100 },
						"global_caps", new Integer[] { null, null, null }, "worker_id", "w", "now", this.now,
						"lease_until", this.now.plusSeconds(30), "not_repeatable", Set.of(), "limit", 100));
		assertThat(several).anyMatch((line) -> line.contains("Index Scan using jobs_claim_type_idx on jobs c"))
			.anyMatch((line) -> line.contains("Index Scan using jobs_pkey on jobs j"));
		this.plans.assertSearchesOnly(several);
		List<String> one = explain(PostgresClaims.claimSql(PostgresClaims.CLAIM_DUE, attemptLeft),
				Map.of("type", "type1", "worker_id", "w", "now", this.now, "lease_until", this.now.plusSeconds(30),
						"not_repeatable", Set.of(), "limit", 100));
		this.plans.assertSearchesOnly(one);
		List<String> capped = explain(PostgresClaims.claimSql(PostgresClaims.CLAIM_BY_TYPE, attemptLeft),
				Map.of("types", new String[] { "type3", "type4" }, "rooms", new Integer[] { 2, 5 }, "global_caps",
						new Integer[] { null, 3 }, "worker_id", "w", "now", this.now, "lease_until",
						this.now.plusSeconds(30), "not_repeatable", Set.of(), "limit", 100));
		assertThat(capped).anyMatch((line) -> line.contains("Index Scan using jobs_claim_type_idx on jobs c"));
		this.plans.assertSearchesOnly(capped);
	}

	/**
	 * One type holding every row, as in a backlog of one kind of job: asked of each row,
	 * the paused-type filter made the planner expect a single match and sort every
	 * pending job in each claim.
	 */
	@Test
	void aBacklogOfOneTypeIsClaimedInIndexOrderWithoutASort() throws SQLException {
		try (PostgresTestDatabase backlog = PostgresTestDatabase.create()) {
			backlog.execute(
					"""
							INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at)
							SELECT 'noop', 'pending', '{}', 5, timestamptz '2030-01-09' + i * interval '1 ms', timestamptz '2030-01-09'
							FROM generate_series(1, 20000) i
							""");
			backlog.execute("VACUUM ANALYZE jobs");
			QueryPlans backlogPlans = new QueryPlans(backlog, "20000 pending jobs of one type");
			for (boolean attemptLeft : new boolean[] { false, true }) {
				List<String> plan = backlogPlans.explain(PostgresClaims.claimSql(PostgresClaims.CLAIM_DUE, attemptLeft),
						Map.of("type", "noop", "worker_id", "w", "now", this.now, "lease_until",
								this.now.plusSeconds(30), "not_repeatable", Set.of(), "limit", 128));
				// The only sort is of the claimed rows, for their events' order.
				assertThat(plan)
					.anyMatch((line) -> line.matches(".*Index Scan using jobs_claim(_type)?_idx on jobs c.*"))
					.noneMatch((line) -> line.contains("Sort Key: c."));
				// Of one type, the planner may read the index of all types: in claim
				// order,
				// checking the due time on each entry (not its first column), to the
				// limit.
				backlogPlans.assertSearchesOnlyBesideWalksOf(plan,
						"the claim reads pending jobs in claim order and stops at its limit, past jobs not yet due",
						"jobs_claim_idx");
			}
		}
	}

	/**
	 * Jobs enqueued together share their due time: the oldest claimable one is the first
	 * entry of the index of due jobs that a live worker handles, not the lowest id among
	 * all of them (a tie broken by id read and sorted the 100,000 jobs of a bulk
	 * enqueue).
	 */
	@Test
	void theOldestClaimableJobIsTheFirstDueEntryWithoutASort() throws SQLException {
		try (PostgresTestDatabase backlog = PostgresTestDatabase.create()) {
			backlog.execute("""
					INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at)
					SELECT 'noop', 'pending', '{}', 5, timestamptz '2030-01-09', timestamptz '2030-01-09'
					FROM generate_series(1, 20000) i
					""");
			backlog.execute("""
					INSERT INTO job_workers (worker_id, host, pid, types, concurrency, started_at, heartbeat_at)
					VALUES ('w', 'h', 1, ARRAY['noop'], 4, timestamptz '2030-01-09', timestamptz '2030-01-10')
					""");
			backlog.execute("VACUUM ANALYZE jobs");
			QueryPlans backlogPlans = new QueryPlans(backlog, "20000 pending jobs due at once");
			List<String> plan = backlogPlans.explain(PostgresQueueInsights.STATEMENTS.oldestClaimable,
					Map.of("now", this.now, "alive_after", this.now.minusSeconds(60)));
			assertThat(plan).anyMatch((line) -> line.contains("Index Scan using jobs_due_idx"))
				.noneMatch((line) -> line.contains("Sort"));
			backlogPlans.assertSearchesOnly(plan);
		}
	}

	@Test
	void leaseWorkReadsRunningJobsOnly() throws SQLException {
		// jobs_running_idx reads running jobs only (the lease end is checked on each: no
		// index holds it, so a renewal writes none).
		List<String> recovery = explain(PostgresJobStore.RECOVER_EXPIRED, Map.of("now", this.now, "limit", 500));
		assertThat(recovery)
			.anyMatch((line) -> line.matches(".*(Index Scan using|Bitmap Index Scan on) jobs_running_idx.*"));
		this.plans.assertSearchesOnlyBesideWalksOf(recovery, RUNNING_JOBS_WALKED, "jobs_running_idx");
		List<String> renewal = explain(PostgresJobStore.RENEW_LEASES,
				Map.of("lease_until", this.now.plusSeconds(30), "ids", new Long[] { 1L, 2L }, "runs",
						new Integer[] { 1, 1 }, "waiting", new Boolean[] { false, true }, "now", this.now, "worker_id",
						"w"));
		assertThat(renewal).anyMatch((line) -> line.matches(".*Index Scan using jobs_(pkey|running_idx).*"));
		this.plans.assertSearchesOnly(renewal);
	}

	@Test
	void progressIsWrittenAndReadByPrimaryKey() throws SQLException {
		List<String> write = explain(PostgresJobStore.RECORD_PROGRESS,
				Map.of("done", 1L, "total", 2L, "message", "m", "now", this.now, "job_id", 1L, "run", 1));
		assertThat(write).anyMatch((line) -> line.contains("Index Scan using jobs_pkey"));
		this.plans.assertSearchesOnly(write);
		List<String> read = explain(PostgresQueueInsights.STATEMENTS.progress,
				Map.of("ids", new Long[] { 1L, 2L, 3L }));
		assertThat(read).anyMatch((line) -> line.contains("Index Scan using jobs_pkey"));
		this.plans.assertSearchesOnly(read);
	}

	@Test
	void snapshotStatementsUseTheirIndexes() throws SQLException {
		Map<String, List<String>> plans = new LinkedHashMap<>();
		plans.put("COUNTS", explain(PostgresQueueInsights.STATEMENTS.counts, Map.of()));
		plans.put("FINISHED_COUNTS", explain(FinishedCounts.SUM, Map.of()));
		plans.put("CLAIMABLE_COUNT", explain(PostgresQueueInsights.STATEMENTS.claimableCount,
				Map.of("now", this.now, "alive_after", this.now)));
		plans.put("OLDEST_CLAIMABLE", explain(PostgresQueueInsights.STATEMENTS.oldestClaimable,
				Map.of("now", this.now, "alive_after", this.now)));
		plans.put("OLDEST_RUNNING", explain(PostgresQueueInsights.STATEMENTS.oldestRunning, Map.of("limit", 10)));
		plans.put("STUCK",
				explain(PostgresQueueInsights.STATEMENTS.stuck, Map.of("heartbeat_before", this.now, "limit", 10)));
		plans.put("RETRIES", explain(PostgresQueueInsights.STATEMENTS.retries, Map.of()));
		plans.put("ERRORS", explain(PostgresQueueInsights.STATEMENTS.errors, Map.of()));
		plans.put("LIST_FAILED",
				explain(PostgresQueueInsights.STATEMENTS.jobs(new JobQuery(JobStatus.FAILED, null, null, null, 50)),
						Map.of("limit", 51)));
		plans.put("LIST_WAITING_OF_TYPE",
				explain(PostgresQueueInsights.STATEMENTS
					.jobs(new JobQuery(JobStatus.WAITING, "summary", null, null, 50)),
						Map.of("type", "summary", "limit", 51)));
		plans.put("LIST_OF_KEY",
				explain(PostgresQueueInsights.STATEMENTS.jobs(new JobQuery(null, null, null, "customer-8", null, 50)),
						Map.of("job_key", "customer-8", "limit", 51)));
		plans.put("LIST_FAILED_OF_KEY",
				explain(PostgresQueueInsights.STATEMENTS
					.jobs(new JobQuery(JobStatus.FAILED, null, null, "customer-8", null, 50)),
						Map.of("job_key", "customer-8", "limit", 51)));
		// Statements that walk a whole index by design, with the reason; every other one
		// searches.
		Map<String, String[]> walks = Map.of("COUNTS",
				new String[] { "counts every unfinished job by type and status: each status's partial index whole",
						"jobs_claim_type_idx", "jobs_keyed_idx", "jobs_running_idx" },
				"OLDEST_RUNNING", new String[] { RUNNING_JOBS_WALKED, "jobs_running_idx" }, "STUCK",
				new String[] { RUNNING_JOBS_WALKED, "jobs_running_idx" }, "RETRIES",
				new String[] { "counts the attempts used of every retried, failed and running job", "jobs_retries_idx",
						"jobs_running_idx" },
				"ERRORS",
				new String[] {
						"counts every kept job with an error code, by code, type and status", "jobs_error_code_idx" },
				"LIST_FAILED",
				new String[] { "A finding, not a design: the newest failed jobs of all types are found by walking "
						+ "the primary key backwards and filtering on the status (31,491 rows read for 51 here, the "
						+ "whole table when none failed); no index holds failed jobs in id order across types",
						"jobs_pkey" },
				"LIST_FAILED_OF_KEY",
				new String[] { "A finding, not a design: the planner ANDs the key's entries with the failed jobs "
						+ "of jobs_retries_idx, which it reads whole (its first column is the type): every kept "
						+ "failed job, for a listing of one key's", "jobs_retries_idx" });
		plans.forEach((name, plan) -> {
			String[] walk = walks.get(name);
			if (walk == null) {
				this.plans.assertSearchesOnly(plan);
			}
			else {
				this.plans.assertSearchesOnlyBesideWalksOf(plan, name + ": " + walk[0],
						Arrays.copyOfRange(walk, 1, walk.length));
			}
		});
		// Attempts used: retried and failed jobs from their partial index, running ones
		// from theirs; pending jobs that never ran are not read.
		assertThat(plans.get("RETRIES")).anyMatch((line) -> line.contains("jobs_retries_idx"))
			.anyMatch((line) -> line.contains("jobs_running_idx"));
		// A key's jobs, newest first, read along the key index; with a status as well,
		// the key's entries are still what is read (the planner may AND them with the
		// status's index).
		assertThat(plans.get("LIST_OF_KEY"))
			.anyMatch((line) -> line.contains("Index Scan Backward using jobs_key_idx"));
		assertThat(plans.get("LIST_FAILED_OF_KEY")).anyMatch((line) -> line.contains("jobs_key_idx"));
		assertThat(plans.get("LIST_WAITING_OF_TYPE"))
			.anyMatch((line) -> line.contains("Index Scan Backward using jobs_failed_cancelled_waiting_idx"));
		// Counts: each unfinished status from its partial index; the finished ones from
		// their kept counts, a few rows per type and status, whatever the jobs kept.
		assertThat(plans.get("COUNTS")).anyMatch((line) -> line.contains("jobs_running_idx"))
			.anyMatch((line) -> line.contains("jobs_failed_cancelled_waiting_idx"))
			.noneMatch((line) -> line.contains("jobs_finished_idx"));
		assertThat(plans.get("FINISHED_COUNTS")).anyMatch((line) -> line.contains("job_finished_counts"))
			.noneMatch((line) -> line.contains(" on jobs"));
	}

	@Test
	void theOutcomeChartReadsARangeOfTheRollupsPrimaryKey() throws SQLException {
		assertThat(explain(OutcomeMinutes.SUM, Map.of("from_minute", 29_010_020L, "to_minute", 29_010_080L)))
			.anyMatch((line) -> line.contains("job_outcome_minutes_pkey"))
			.noneMatch((line) -> line.contains("Seq Scan"));
	}

	@Test
	void retentionReadsOnlyTheRowsItDeletes() throws SQLException {
		List<String> types = explain(PostgresRetentionStore.FINISHED_TYPES, Map.of("status", "succeeded"));
		assertThat(types).anyMatch((line) -> line.contains("jobs_finished_idx"));
		this.plans.assertSearchesOnly(types);
		List<String> delete = explain(PostgresRetentionStore.DELETE_FINISHED, Map.of("status", "succeeded", "type",
				"type1", "finished_before", Instant.parse("2030-01-01T01:00:00Z"), "limit", 1000));
		assertThat(delete).anyMatch((line) -> line.contains("jobs_finished_idx"));
		this.plans.assertSearchesOnly(delete);
	}

	private List<String> explain(String template, Map<String, Object> parameters) throws SQLException {
		return this.plans.explain(template, parameters);
	}

}
