package dev.jobqueue.sqlite;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.core.store.QueueSnapshot;
import dev.jobqueue.jdbc.FinishedCounts;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class SqliteQueueInsightsTests {

	static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	static final SnapshotSettings SETTINGS = new SnapshotSettings(Duration.ofMinutes(15), 10, Duration.ofMinutes(3),
			10);

	@TempDir
	Path dir;

	TestDatabase db;

	SqliteQueueInsights insights;

	@BeforeEach
	void setUp() {
		this.db = TestDatabase.create(this.dir);
		this.insights = new SqliteQueueInsights(this.db.database(), SqliteDialect.tables(""));
	}

	@AfterEach
	void tearDown() {
		this.db.close();
	}

	@Test
	void everySnapshotQueryAndJobListReadsAnIndex() {
		insertFinishedJobs(20_000);
		this.db.execute("UPDATE jobs SET job_key = 'customer-' || (id % 100) WHERE id % 4 = 0");
		this.db.execute("ANALYZE");
		Map<String, List<String>> plans = this.insights.explainSnapshot(NOW);
		plans.forEach((name, plan) -> System.out.println(name + ": " + plan));
		assertThat(plans).hasSize(9);
		plans.forEach((name, plan) -> assertUsesIndex(name, plan));
		for (JobQuery query : List.of(new JobQuery(JobStatus.FAILED, null, null, null, 20),
				new JobQuery(JobStatus.FAILED, "type-3", null, 500L, 20),
				new JobQuery(null, null, "DEPENDENCY:CODE-7", null, 20),
				new JobQuery(JobStatus.FAILED, null, "DEPENDENCY:CODE-7", null, 20),
				new JobQuery(null, null, null, "customer-8", null, 20),
				new JobQuery(JobStatus.FAILED, "type-8", null, "customer-8", 500L, 20))) {
			List<String> plan = this.insights.explainJobs(query);
			System.out.println(query + ": " + plan);
			assertUsesIndex(query.toString(), plan);
			if (query.key() != null) {
				assertThat(plan).as(query.toString()).anyMatch((line) -> line.contains("jobs_key_idx"));
			}
			assertThat(plan).as(query.toString())
				.noneMatch((line) -> line.contains("ORDER BY") && query.errorCode() == null);
		}
	}

	@Test
	void snapshotReadsIndexesOnlyWithAMillionFinishedJobs() {
		long insertStart = System.nanoTime();
		insertFinishedJobs(1_000_000);
		long insertMillis = (System.nanoTime() - insertStart) / 1_000_000;
		this.db.execute(
				"INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at, attempts) "
						+ "VALUES ('type-1', 'pending', '{}', 3, ?, ?, 0)",
				NOW.minusSeconds(30).toEpochMilli(), NOW.minusSeconds(60).toEpochMilli());
		this.db.execute("INSERT INTO job_workers (worker_id, host, pid, types, concurrency, started_at, heartbeat_at) "
				+ "VALUES ('w1', 'host', 1, 'type-0,type-1', 4, ?, ?)", NOW.toEpochMilli(), NOW.toEpochMilli());
		this.insights.snapshot(NOW, SETTINGS);
		long best = Long.MAX_VALUE;
		QueueSnapshot snapshot = null;
		for (int i = 0; i < 3; i++) {
			long start = System.nanoTime();
			snapshot = this.insights.snapshot(NOW, SETTINGS);
			best = Math.min(best, (System.nanoTime() - start) / 1_000_000);
		}
		System.out.printf("Snapshot over 1,000,000 finished jobs: best of 3 = %d ms (insert took %d ms)%n", best,
				insertMillis);
		assertThat(snapshot.countsByStatus().get(JobStatus.SUCCEEDED)).isEqualTo(900_000);
		assertThat(snapshot.countsByStatus().get(JobStatus.FAILED)).isEqualTo(100_000);
		assertThat(snapshot.errors().distinctCodes()).isEqualTo(50);
		assertThat(snapshot.errors().top()).hasSize(10);
		assertThat(snapshot.oldestClaimableAge()).isEqualTo(Duration.ofSeconds(30));
		// What keeps the snapshot fast is countable: with a million rows and the
		// planner's statistics of them, every snapshot query still reads through an
		// index, never a whole table. (Its time is printed above, not asserted: the
		// benchmarks measure time.)
		this.db.execute("ANALYZE");
		Map<String, List<String>> plans = this.insights.explainSnapshot(NOW);
		assertThat(plans).isNotEmpty();
		plans.forEach((query, plan) -> {
			System.out.println(query + " over a million rows: " + plan);
			assertUsesIndex(query + " over a million rows", plan);
		});
	}

	@Test
	void theOutcomeChartReadsARangeOfTheRollupsPrimaryKey() {
		// What the outcomes are is the behaviour suite's (InsightsJobViewTests); here,
		// how SQLite reads them.
		List<String> plan = this.insights.explainOutcomeMinutes();
		System.out.println("outcome minutes: " + plan);
		assertUsesIndex("outcome minutes", plan);
		assertThat(plan)
			.anyMatch((line) -> line.contains("job_outcome_minutes USING PRIMARY KEY (minute>? AND minute<?)"));
	}

	@Test
	void checkAvailableFailsWithTheReasonOnAReadOnlyConnection() {
		SQLiteConfig config = SqliteDataSources.connectionConfig(Duration.ofSeconds(1), "NORMAL");
		config.setReadOnly(true);
		SQLiteDataSource readOnly = new SQLiteDataSource(config);
		readOnly.setUrl(this.db.url());
		SqliteQueueInsights probe = new SqliteQueueInsights(
				new SqliteDatabase(readOnly, this.db.file().toString(), Duration.ofSeconds(1)),
				SqliteDialect.tables(""));
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(probe::checkAvailable)
			.satisfies((ex) -> System.out.println("read-only: " + ex.getMessage()))
			.withMessageContaining("read-only");
	}

	@Test
	void checkAvailableFailsWithTheReasonWhenTheFileIsNotADatabase() throws Exception {
		this.db.close();
		Files.deleteIfExists(Path.of(this.db.file() + "-wal"));
		Files.deleteIfExists(Path.of(this.db.file() + "-shm"));
		Files.write(this.db.file(), "this is not a database, it was overwritten by mistake".repeat(200).getBytes());
		SQLiteDataSource broken = new SQLiteDataSource(
				SqliteDataSources.connectionConfig(Duration.ofSeconds(1), "NORMAL"));
		broken.setUrl(this.db.url());
		SqliteQueueInsights probe = new SqliteQueueInsights(
				new SqliteDatabase(broken, this.db.file().toString(), Duration.ofSeconds(1)), SqliteDialect.tables(""));
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(probe::checkAvailable)
			.satisfies((ex) -> System.out.println("garbage: " + ex.getMessage()))
			.withMessageContaining("not a database");
	}

	private static void assertUsesIndex(String name, List<String> plan) {
		assertThat(plan).as(name).isNotEmpty();
		for (String line : plan) {
			if (line.startsWith("SCAN w ") || line.startsWith("SCAN job_finished_counts")) {
				// The worker table, one row per process, and the counts of finished
				// jobs, a few rows per type and status, are read whole by design.
				continue;
			}
			boolean fullScan = line.matches("SCAN \\w+") || (line.startsWith("SCAN ") && !line.contains(" INDEX "));
			assertThat(fullScan).as(name + " reads the table without an index: " + line).isFalse();
		}
	}

	/**
	 * Finished jobs in one statement: 90% succeeded, 10% failed with one of 50 error
	 * codes, 20 types; then counted as the migration that keeps their counts does.
	 */
	private void insertFinishedJobs(int count) {
		long day = Duration.ofDays(1).toMillis();
		this.db.execute("""
				WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
				INSERT INTO jobs (type, status, payload, attempts, max_attempts, runs, run_at, created_at, started_at,
				                  finished_at, worker_id, error_code, error_detail)
				SELECT 'type-' || (i % 20),
				       CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'succeeded' END,
				       '{"n":' || i || '}', 1 + (i % 3), 3, 1, ? - i, ? - i, ? - i + 10, ? - i + 20, 'worker-1',
				       CASE WHEN i % 10 = 0 THEN 'DEPENDENCY:CODE-' || ((i / 10) % 50) END,
				       CASE WHEN i % 10 = 0 THEN 'failed' END
				FROM n
				""", count, NOW.toEpochMilli() - day, NOW.toEpochMilli() - day, NOW.toEpochMilli() - day,
				NOW.toEpochMilli() - day);
		FinishedCounts.RECOUNT.forEach((sql) -> this.db.execute(SqliteDialect.tables("").expand(sql)));
	}

}
