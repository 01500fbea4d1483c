package dev.jobqueue.sqlite;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.testing.QueueFileTests;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;

class SqliteJobStoreTests extends QueueFileTests {

	/**
	 * Why the claim of several types walks {@code jobs_claim_idx} without a condition:
	 * the index holds the pending jobs without a key of every type in claim order, and
	 * the claim reads it in that order, skipping other types and jobs not yet due, until
	 * it has its limit.
	 */
	private static final String CLAIM_OF_SEVERAL_TYPES_WALKS = "the claim of several types walks jobs_claim_idx in "
			+ "claim order until its limit, past pending jobs of other types and jobs not yet due";

	/**
	 * Why recovery walks the running jobs: {@code jobs_running_idx} holds running jobs
	 * only, by type, without their lease, so that a renewal writes no index; running jobs
	 * are at most the workers' handler threads.
	 */
	private static final String RUNNING_JOBS_WALKED = "recovery reads every running job from jobs_running_idx, which "
			+ "holds no lease so that a renewal writes no index entry";

	@Test
	void claimRecoveryAndDedupQueriesUseIndexesNotTableScans() {
		for (int i = 0; i < 200; i++) {
			this.harness.queue.enqueue(JobRequest.of((i % 2 == 0) ? "a" : "b", i).priority(i % 3));
		}
		SqliteJobStore store = this.db.store();
		String claimAll = store.tables().expand("""
				SELECT id FROM {jobs} INDEXED BY jobs_claim_idx
				WHERE status = 'pending' AND job_key IS NULL AND type IN ('a', 'b') AND run_at <= 0
				ORDER BY priority DESC, run_at, id LIMIT 10
				""");
		String claimOne = store.tables().expand("""
				SELECT id FROM {jobs} INDEXED BY jobs_claim_type_idx
				WHERE status = 'pending' AND job_key IS NULL AND type = 'a' AND run_at <= 0
				ORDER BY priority DESC, run_at, id LIMIT 10
				""");
		String recovery = "SELECT id FROM jobs WHERE status = 'running' AND lease_until < 0 LIMIT 10";
		String dedup = "SELECT id FROM jobs WHERE dedup_key = 'k' AND status IN ('pending', 'running')";
		for (String query : List.of(claimOne, dedup)) {
			assertThat(queryPlan(query)).as(query)
				.isNotEmpty()
				.allMatch(QueryPlans::searchesWithACondition)
				.noneMatch((step) -> step.contains("TEMP B-TREE"));
		}
		assertThat(queryPlan(claimAll)).as(CLAIM_OF_SEVERAL_TYPES_WALKS)
			.anyMatch((step) -> step.contains("jobs_claim_idx"))
			.allMatch(QueryPlans.searchesWithAConditionBesideWalksOf("jobs_claim_idx"))
			.noneMatch((step) -> step.contains("TEMP B-TREE"));
		assertThat(queryPlan(recovery)).as(RUNNING_JOBS_WALKED)
			.anyMatch((step) -> step.contains("jobs_running_idx"))
			.allMatch(QueryPlans.searchesWithAConditionBesideWalksOf("jobs_running_idx"));
	}

	@Test
	void theStoresOwnClaimStatementRunsOnTheClaimIndexes() {
		for (int types : new int[] { 1, 3 }) {
			List<String> plan = queryPlan(this.db.store().claimDueStatement(types));
			assertThat(plan).anyMatch((step) -> step.contains((types == 1) ? "jobs_claim_type_idx" : "jobs_claim_idx"))
				.noneMatch((step) -> step.contains("TEMP B-TREE"));
			if (types == 1) {
				assertThat(plan).allMatch(QueryPlans::searchesWithACondition);
			}
			else {
				assertThat(plan).as(CLAIM_OF_SEVERAL_TYPES_WALKS)
					.allMatch(QueryPlans.searchesWithAConditionBesideWalksOf("jobs_claim_idx"));
			}
		}
	}

	@Test
	void theFanInStatementsProbeTheDependencyKeyAndUpdateJobsByTheirKey() {
		long child = this.harness.queue.enqueue("row", 1);
		this.harness.queue.enqueue(JobRequest.of("summary", 1).after(child));
		SqliteJobStore store = this.db.store();
		for (String statement : List.of(SqliteLinks.ANY_DEPENDENTS, SqliteLinks.COUNT_DOWN, SqliteLinks.END_BY_POLICY,
				SqliteLinks.MARK_SETTLED)) {
			List<String> plan = queryPlan(store.tables().expand(statement));
			assertThat(plan).as(statement)
				.anyMatch((step) -> step.matches(".*job_dependencies USING PRIMARY KEY \\(depends_on=.*"))
				.allMatch(QueryPlans::searchesWithACondition)
				.noneMatch((step) -> step.contains("TEMP B-TREE"));
		}
	}

	private List<String> queryPlan(String sql) {
		return QueryPlans.of(this.db.dataSource(), sql);
	}

	@Test
	void tablePrefixKeepsTwoQueuesApartInOneFile() {
		try (TestDatabase other = TestDatabase.create(this.db.file(), "other_")) {
			WorkerHarness second = new WorkerHarness(other, this.clock);
			long id = second.queue.enqueue("x", 1);
			assertThat(second.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
			assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
			assertThat(other.count("SELECT count(*) FROM other_jobs")).isEqualTo(1);
			assertThat(other.count("SELECT count(*) FROM other_jobqueue_schema_history")).isPositive();
		}
	}

	@Test
	void newFileUsesWalForeignKeysAndIncrementalVacuum() {
		assertThat(this.db.column("PRAGMA journal_mode")).containsExactly("wal");
		assertThat(this.db.column("PRAGMA foreign_keys")).containsExactly(1);
		assertThat(this.db.column("PRAGMA auto_vacuum")).containsExactly(2);
		assertThat(this.db.column("PRAGMA synchronous")).containsExactly(1);
	}

}
