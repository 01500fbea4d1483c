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
		for (String query : List.of(claimAll, claimOne, recovery, dedup)) {
			List<String> plan = queryPlan(query);
			assertThat(plan).as(query).isNotEmpty();
			assertThat(plan).as(query)
				.noneMatch((step) -> step.matches("SCAN jobs( |$)(?!USING).*") || step.equals("SCAN jobs"));
			assertThat(plan).as(query).noneMatch((step) -> step.contains("TEMP B-TREE"));
		}
	}

	@Test
	void theStoresOwnClaimStatementRunsOnTheClaimIndexes() {
		for (int types : new int[] { 1, 3 }) {
			List<String> plan = queryPlan(this.db.store().claimDueStatement(types));
			assertThat(plan).anyMatch((step) -> step.contains((types == 1) ? "jobs_claim_type_idx" : "jobs_claim_idx"));
			assertThat(plan).noneMatch((step) -> step.equals("SCAN jobs") || step.contains("TEMP B-TREE"));
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
				.noneMatch((step) -> step.matches("SCAN (jobs|job_dependencies)( .*)?"))
				.noneMatch((step) -> step.contains("TEMP B-TREE"));
		}
	}

	private List<String> queryPlan(String sql) {
		List<String> plan = new ArrayList<>();
		try (var connection = this.db.dataSource().getConnection();
				var statement = connection.createStatement();
				var rows = statement.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
			while (rows.next()) {
				plan.add(rows.getString("detail"));
			}
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
		System.out.println("EXPLAIN QUERY PLAN " + sql.strip().replaceAll("\\s+", " ") + " -> " + plan);
		return plan;
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
