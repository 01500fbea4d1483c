package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import dev.jobqueue.mysql.testing.MariaDbTest;
import dev.jobqueue.mysql.testing.MysqlTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of the hot statements on a table of 20,000 jobs ({@code EXPLAIN}): claims
 * read their index in claim order, lists of ids are primary-key lookups in reads and in
 * updates (MariaDB before 11.1 runs {@code IN (subquery)} once per row in an UPDATE, so
 * updates join the list instead), and nothing the hot path runs scans the jobs table:
 * each read of it searches an index with a condition ({@code const}, {@code eq_ref},
 * {@code ref} or {@code range}), never a walk of the table ({@code ALL}) or of a whole
 * index ({@code index}).
 */
@MariaDbTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MysqlQueryPlanTests {

	private MysqlTestDatabase db;

	@BeforeAll
	void fill() throws SQLException {
		this.db = MysqlTestDatabase.create();
		try (Connection connection = this.db.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			for (int from = 0; from < 20_000; from += 1_000) {
				StringBuilder insert = new StringBuilder(
						"INSERT INTO jobs (type, status, payload, max_attempts, run_at, "
								+ "created_at, lease_until, chain_id, finished_at, job_key) VALUES ");
				for (int n = from; n < from + 1_000; n++) {
					String status = (n % 10 == 0) ? "running" : (n % 10 == 1) ? "succeeded" : "pending";
					insert.append((n > from) ? "," : "")
						.append("('")
						.append((n % 2 == 0) ? "mail" : "report")
						.append("', '")
						.append(status)
						.append("', '{}', 3, ")
						.append(1_000_000 + n)
						.append(", 1000000, ")
						.append(status.equals("running") ? String.valueOf(2_000_000 + n) : "NULL")
						.append(", ")
						.append((n % 100 == 0) ? String.valueOf(n + 1) : "NULL")
						.append(", ")
						.append(status.equals("succeeded") ? String.valueOf(1_500_000 + n) : "NULL")
						.append(", ")
						.append((n % 3 == 0) ? "'customer-" + (n % 500) + "'" : "NULL")
						.append(')');
				}
				statement.executeUpdate(insert.toString());
			}
			StringBuilder starts = new StringBuilder(
					"INSERT INTO job_rate_starts (type, job_key, started_at, job_id) VALUES ");
			for (int n = 0; n < 1_000; n++) {
				starts.append((n > 0) ? "," : "")
					.append("('mail', '")
					.append((n % 2 == 0) ? "" : "customer-" + (n % 20))
					.append("', ")
					.append(1_000_000 + n)
					.append(", ")
					.append(n + 1)
					.append(')');
			}
			statement.executeUpdate(starts.toString());
			statement.execute("ANALYZE TABLE jobs, job_dependencies, job_attempts, job_events, job_rate_starts");
		}
	}

	@AfterAll
	void drop() {
		this.db.close();
	}

	@Test
	void aClaimOfOneTypeReadsTheClaimIndexInOrder() {
		List<Map<String, String>> plan = explain(MysqlClaims.CLAIM_DUE.replace("{attempt_left}", ""),
				Map.of("type", "'mail'", "now", "1010000", "limit", "10"));
		assertThat(row(plan, "jobs")).containsEntry("key", "jobs_claim_type_idx");
		assertThat(row(plan, "jobs").get("Extra")).doesNotContain("filesort");
		assertSearches(plan, "jobs");
	}

	@Test
	void aClaimByRoundsReadsKeysAndTheirJobsFromAnIndexLedByStatusTypeAndKey() {
		Map<String, String> values = Map.of("type", "'mail'", "after", "'customer-1'", "until", "NULL", "key",
				"'customer-3'", "status", "'running'", "now", "1010000", "limit", "10", "since", "0", "types",
				"'[\"mail\",\"report\"]'");
		for (String statement : List.of(MysqlClaims.NEXT_KEY, MysqlClaims.COUNT_OF_KEY,
				MysqlClaims.DUE_OF_KEY.replace("{attempt_left}", ""), MysqlClaims.FIRST_OF_KEY,
				MysqlClaims.PAUSED_TYPES_AND_KEYS)) {
			List<Map<String, String>> plan = explain(statement, values);
			Map<String, String> jobs = row(plan, "jobs");
			assertThat(jobs.get("key")).as(statement).isIn("jobs_keyed_idx", "jobs_claim_type_idx");
			assertThat(jobs.get("type")).as(statement).isIn("ref", "range");
			assertThat(jobs.get("Extra")).as(statement).doesNotContain("filesort");
			assertSearches(plan, "jobs");
		}
		List<Map<String, String>> starts = explain(MysqlClaims.STARTS_IN_WINDOW, values);
		assertThat(row(starts, "job_rate_starts")).containsEntry("key", "PRIMARY");
		assertSearches(starts, "job_rate_starts");
		List<Map<String, String>> lockChosen = explain(MysqlClaims.LOCK_CHOSEN,
				Map.of("ids", "'[5,7,9]'", "ordered_heads", "'[7]'"));
		// The chosen jobs by primary key; an ordered key's head checked in the keyed
		// index.
		assertThat(row(lockChosen, "c")).containsEntry("key", "PRIMARY");
		assertThat(row(lockChosen, "h")).containsEntry("key", "jobs_keyed_idx");
		assertSearches(lockChosen, "c");
		assertSearches(lockChosen, "h");
	}

	@Test
	void listsOfIdsArePrimaryKeyLookupsInReadsAndUpdates() {
		Map<String, String> ids = Map.of("ids", "'[5,7,9]'", "not_repeatable", "'[]'", "worker_id", "'w'", "now", "1",
				"lease_until", "2");
		List<Map<String, String>> readTaken = explain(MysqlClaims.READ_TAKEN, ids);
		assertThat(row(readTaken, "jobs")).containsEntry("key", "PRIMARY");
		assertSearches(readTaken, "jobs");
		List<Map<String, String>> take = explain(MysqlClaims.TAKE, ids);
		assertThat(row(take, "j")).containsEntry("key", "PRIMARY");
		assertSearches(take, "j");
		List<Map<String, String>> lockWaiting = explain(MysqlLinks.LOCK_WAITING, ids);
		assertThat(row(lockWaiting, "jobs").get("type")).isNotEqualTo("ALL");
		assertSearches(lockWaiting, "jobs");
	}

	@Test
	void leaseRecoveryReadsOnlyRunningJobs() {
		Map<String, String> values = Map.of("now", "2000100", "limit", "10", "ids", "'[10,20]'");
		// No index holds the lease end (a renewal writes none): any index led by the
		// status reads the running jobs alone, and the lease end is checked on each.
		List<Map<String, String>> lockPlan = explain(MysqlLeaseRecovery.LOCK_EXPIRED, values);
		Map<String, String> lockExpired = row(lockPlan, "jobs");
		assertThat(lockExpired.get("type")).isIn("ref", "range");
		assertThat(lockExpired.get("key")).isIn("jobs_keyed_idx", "jobs_due_idx", "jobs_status_type_idx",
				"jobs_claim_type_idx", "jobs_finished_idx");
		assertSearches(lockPlan, "jobs");
		List<Map<String, String>> recover = explain(MysqlLeaseRecovery.RECOVER_EXPIRED, values);
		assertThat(row(recover, "jobs").get("type")).isNotEqualTo("ALL");
		assertSearches(recover, "jobs");
	}

	@Test
	void aChainsCancelReadsTheChainIndex() {
		List<Map<String, String>> plan = explain("""
				UPDATE {jobs} SET cancel_requested = TRUE WHERE chain_id = :chain_id AND id {in_ids :ids}
				AND status = 'running'
				""", Map.of("chain_id", "101", "ids", "'[100]'"));
		assertThat(row(plan, "jobs")).containsEntry("key", "jobs_chain_idx");
		assertSearches(plan, "jobs");
	}

	/**
	 * {@code EXPLAIN} of a statement of the store with {@code values} for its parameters.
	 */
	private List<Map<String, String>> explain(String template, Map<String, String> values) {
		String sql = this.db.storage().tables().expand(template);
		for (Map.Entry<String, String> value : values.entrySet()) {
			sql = sql.replaceAll(":" + value.getKey() + "\\b", value.getValue());
		}
		List<Map<String, String>> plan = new ArrayList<>();
		try (Connection connection = this.db.dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("EXPLAIN " + sql)) {
			while (rows.next()) {
				plan.add(Map.of("table", String.valueOf(rows.getString("table")), "type",
						String.valueOf(rows.getString("type")), "key", String.valueOf(rows.getString("key")), "Extra",
						String.valueOf(rows.getString("Extra"))));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
		return plan;
	}

	/**
	 * Every read of {@code table} in {@code plan} searches an index with a condition: a
	 * key, and an access by it ({@code const}, {@code eq_ref}, {@code ref},
	 * {@code range}), never {@code ALL} (the whole table) or {@code index} (the whole
	 * index, in its order).
	 */
	private static void assertSearches(List<Map<String, String>> plan, String table) {
		List<Map<String, String>> reads = plan.stream().filter((row) -> row.get("table").equals(table)).toList();
		assertThat(reads).as("reads of " + table + " in " + plan).isNotEmpty();
		for (Map<String, String> read : reads) {
			assertThat(read.get("type")).as("access to " + table + " in " + plan)
				.isIn("const", "eq_ref", "ref", "range");
			assertThat(read.get("key")).as("index of " + table + " in " + plan).isNotEqualTo("null");
		}
	}

	private static Map<String, String> row(List<Map<String, String>> plan, String table) {
		return plan.stream()
			.filter((row) -> row.get("table").equals(table))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no row for " + table + " in " + plan));
	}

}
