package dev.jobqueue.benchmarks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;

import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.dashboard.QueueDashboard;

/**
 * The SQLite run's dashboard scenario on PostgreSQL: the overview rendered on a big table
 * (1,000,000 succeeded jobs with their attempt and three event rows, 100,000 pending with
 * their event), the finished jobs ended over the last week, then all of them in the last
 * hour. The table is filled set-based on the server ({@code generate_series}), the counts
 * of finished jobs and the per-minute rollup by their migrations' own statements
 * ({@link FinishedCountsFill}, {@link OutcomeRollupFill}), then vacuumed and analysed as
 * autovacuum would.
 */
final class PostgresDashboardScenario {

	private final String adminUrl;

	private final boolean quick;

	PostgresDashboardScenario(String adminUrl, boolean quick) {
		this.adminUrl = adminUrl;
		this.quick = quick;
	}

	void run() throws Exception {
		int finished = this.quick ? 20_000 : 1_000_000;
		int pending = this.quick ? 2_000 : 100_000;
		ResultTable table = new ResultTable();
		try (PostgresBenchmarkMain.TempDatabase db = new PostgresBenchmarkMain.TempDatabase(this.adminUrl);
				PostgresBenchmarkMain.Node node = new PostgresBenchmarkMain.Node(db.url, 4);
				Connection connection = DriverManager.getConnection(db.url);
				Statement statement = connection.createStatement()) {
			long fillStart = System.nanoTime();
			fill(statement, finished, pending);
			System.err.printf("filled %,d finished + %,d pending in %.0f s%n", finished, pending,
					(System.nanoTime() - fillStart) / 1e9);
			refillFinishedCounts(statement, finished);
			QueueProperties defaults = new QueueProperties();
			QueueDashboard dashboard = new QueueDashboard(new dev.jobqueue.views.QueueViews(node.storage.insights()),
					node.queue, List::of, defaults.snapshotSettings(), defaults.getObservability().getPayloadPreview(),
					Clock.systemUTC());
			String scenario = "PostgreSQL dashboard overview, " + String.format("%,d", finished) + " finished + "
					+ String.format("%,d", pending) + " pending";
			refillOutcomeRollup(statement, finished, "finished over a week");
			OverviewTiming.rows(table, dashboard, node.storage.insights(), scenario, "finished over a week");
			statement.execute("""
					UPDATE job_attempts SET finished_at = now() - (job_id % 3000000) * interval '1 millisecond'
					""");
			statement.execute("VACUUM ANALYZE job_attempts");
			refillOutcomeRollup(statement, finished, "all finished in the last hour");
			OverviewTiming.rows(table, dashboard, node.storage.insights(), scenario, "all finished in the last hour");
		}
		System.out.println("jobqueue benchmark on PostgreSQL: dashboard" + (this.quick ? " --quick" : "") + ", Java "
				+ Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores");
		System.out.println();
		table.print(System.out);
	}

	/**
	 * The rows a finished job and a pending job leave, as the SQLite scenario seeds them;
	 * the finished ones ended one per {@code week / finished} over the last week.
	 */
	private static void fill(Statement statement, int finished, int pending) throws SQLException {
		statement.execute("""
				INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at, started_at,
				                  finished_at, worker_id, attempts, runs)
				SELECT 'noop', 'succeeded', 0, '{"n":' || i || '}', 3, t, t, t, t, 'seed-worker', 1, 1
				FROM generate_series(1, %d) i,
				     LATERAL (SELECT now() - (i * (604800000 / %d) %% 604800000) * interval '1 millisecond') s(t)
				""".formatted(finished, finished));
		statement.execute("""
				INSERT INTO job_attempts (job_id, run, attempt, worker_id, started_at, finished_at, outcome)
				SELECT id, 1, 1, 'seed-worker', started_at, finished_at, 'SUCCEEDED' FROM jobs
				""");
		statement.execute("""
				INSERT INTO job_events (job_id, at, event, actor)
				SELECT id, created_at, 'ENQUEUED', NULL FROM jobs
				UNION ALL SELECT id, started_at, 'CLAIMED', worker_id FROM jobs
				UNION ALL SELECT id, finished_at, 'SUCCEEDED', worker_id FROM jobs
				""");
		statement.execute("""
				INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at)
				SELECT 'noop', 'pending', 0, '{"n":' || i || '}', 3, now() - interval '1 second', now()
				FROM generate_series(1, %d) i
				""".formatted(pending));
		statement.execute("""
				INSERT INTO job_events (job_id, at, event) SELECT id, created_at, 'ENQUEUED' FROM jobs
				WHERE status = 'pending'
				""");
		statement.execute("VACUUM ANALYZE");
	}

	/**
	 * Counts the finished jobs as the migration that keeps their counts does
	 * ({@link FinishedCountsFill}), and says how long that took.
	 */
	static void refillFinishedCounts(Statement statement, int finished) throws SQLException {
		FinishedCountsFill fill = FinishedCountsFill.postgresql();
		if (fill == null) {
			return;
		}
		statement.execute(FinishedCountsFill.DELETE);
		long start = System.nanoTime();
		for (String sql : fill.migration()) {
			statement.execute(sql);
		}
		System.err.printf("finished counts migration (fill) on %,d finished jobs: %.0f ms%n", finished,
				(System.nanoTime() - start) / 1e6);
		statement.execute("VACUUM ANALYZE job_finished_counts");
	}

	/**
	 * Counts the attempts into the per-minute rollup as the migration does
	 * ({@link OutcomeRollupFill}), and says how long that took.
	 */
	private static void refillOutcomeRollup(Statement statement, int attempts, String layout) throws SQLException {
		OutcomeRollupFill fill = OutcomeRollupFill.postgresql();
		if (fill == null) {
			return;
		}
		statement.execute(OutcomeRollupFill.DELETE);
		statement.execute(fill.outcomeIndex());
		long start = System.nanoTime();
		for (String sql : fill.migration()) {
			statement.execute(sql);
		}
		System.err.printf("outcome rollup migration (backfill, index dropped) on %,d attempts, %s: %.0f ms%n", attempts,
				layout, (System.nanoTime() - start) / 1e6);
		statement.execute("VACUUM ANALYZE job_outcome_minutes");
	}

}
