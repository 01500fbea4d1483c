package dev.jobqueue.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import javax.sql.DataSource;

import dev.jobqueue.BulkAction;
import dev.jobqueue.BulkRequest;
import dev.jobqueue.BulkResult;
import dev.jobqueue.Job;
import dev.jobqueue.JobFilter;
import dev.jobqueue.JobStatus;
import dev.jobqueue.PausedType;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.store.JobAdminStore;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.QueueInsights.JobSearch;
import dev.jobqueue.core.store.QueueInsights.SearchResult;
import dev.jobqueue.sqlite.SqliteJobAdminStore;

/**
 * What a bulk action and a search cost on a big table (issue 26): searches that read the
 * most of it, a bulk retry of N failed jobs with one error code among as many other
 * finished jobs, then a bulk cancel of the same jobs (now pending), through
 * {@code JobQueue.bulk} as an operator runs it. Each batch is one write transaction; its
 * duration is measured around the store call, so the longest batch is an upper bound of
 * the longest time the batch held SQLite's write lock (nothing else writes during the
 * run, so no batch waits for the lock). Every job gets its event: checked after each
 * action.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.jobqueue.benchmarks.BulkActionMain
 *     [--quick] [--jobs=100000] [--batch-size=500] [--postgres=jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres]
 * </pre>
 */
public final class BulkActionMain {

	private static final String ERROR_CODE = "DEPENDENCY:PAYMENT_API";

	private final int jobs;

	private final int batchSize;

	private final List<String> rows = new ArrayList<>();

	private BulkActionMain(int jobs, int batchSize) {
		this.jobs = jobs;
		this.batchSize = batchSize;
	}

	public static void main(String[] args) throws Exception {
		int jobs = 100_000;
		int batchSize = BulkRequest.DEFAULT_BATCH_SIZE;
		String postgres = null;
		for (String arg : args) {
			if (arg.equals("--quick")) {
				jobs = 2_000;
			}
			else if (arg.startsWith("--jobs=")) {
				jobs = Integer.parseInt(arg.substring("--jobs=".length()));
			}
			else if (arg.startsWith("--batch-size=")) {
				batchSize = Integer.parseInt(arg.substring("--batch-size=".length()));
			}
			else if (arg.equals("--postgres")) {
				postgres = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
			}
			else if (arg.startsWith("--postgres=")) {
				postgres = arg.substring("--postgres=".length());
			}
			else {
				System.err.println("Unknown argument " + arg
						+ ": use --quick, --jobs=N, --batch-size=N, --postgres[=admin JDBC URL]");
				System.exit(2);
			}
		}
		BulkActionMain main = new BulkActionMain(jobs, batchSize);
		main.rows.add("| bulk action (" + String.format("%,d", jobs) + " matching jobs among "
				+ String.format("%,d", 2 * jobs) + ", batches of " + batchSize
				+ ") | took | jobs/s | batches | longest batch | median batch |");
		main.rows.add("|---|---|---|---|---|---|");
		main.sqlite();
		if (postgres != null) {
			main.postgres(postgres);
		}
		main.rows.forEach(System.out::println);
		System.exit(0);
	}

	private void sqlite() throws Exception {
		Path directory = Files.createTempDirectory("jobqueue-bulk-");
		try (Db db = Db.file(directory, "bulk", "NORMAL"); QueueNode node = new QueueNode(db)) {
			try (Connection connection = DriverManager.getConnection(db.url);
					Statement statement = connection.createStatement()) {
				long now = Instant.now().toEpochMilli();
				statement.execute(fill("WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < "
						+ (2 * this.jobs) + ") ", "g.n", "g", Long.toString(now)));
				for (String sql : FinishedCountsFill.sqlite().migration()) {
					statement.execute(sql);
				}
				statement.execute("ANALYZE");
			}
			search("SQLite", node.insights);
			measure("SQLite", node.store, new SqliteJobAdminStore(node.database, Db.TABLES), node.pool);
		}
		finally {
			try (var files = Files.list(directory)) {
				for (Path file : files.toList()) {
					Files.deleteIfExists(file);
				}
			}
			Files.deleteIfExists(directory);
		}
	}

	private void postgres(String adminUrl) throws Exception {
		try (PostgresBenchmarkMain.TempDatabase db = new PostgresBenchmarkMain.TempDatabase(adminUrl);
				PostgresBenchmarkMain.Node node = new PostgresBenchmarkMain.Node(db.url, 4)) {
			try (Connection connection = DriverManager.getConnection(db.url);
					Statement statement = connection.createStatement()) {
				statement.execute(fill("", "g", "generate_series(1, " + (2 * this.jobs) + ") g", "now()"));
				for (String sql : FinishedCountsFill.postgresql().migration()) {
					statement.execute(sql);
				}
				statement.execute("VACUUM ANALYZE jobs");
			}
			search("PostgreSQL", node.storage.insights());
			measure("PostgreSQL", node.storage.jobs(), node.storage.admin(), node.dataSource);
		}
	}

	/**
	 * Every other job failed with the code; the rest succeeded: as many other finished
	 * jobs as matching ones, spread over the same range of ids.
	 */
	private static String fill(String with, String n, String from, String now) {
		return with + "INSERT INTO jobs (type, status, payload, attempts, max_attempts, runs, run_at, created_at, "
				+ "finished_at, error_code, error_detail) SELECT 'pay', CASE WHEN " + n
				+ " % 2 = 0 THEN 'failed' ELSE 'succeeded' END, '{\"order\":' || " + n + " || '}', 1, 1, 1, " + now
				+ ", " + now + ", " + now + ", CASE WHEN " + n + " % 2 = 0 THEN '" + ERROR_CODE + "' END, CASE WHEN "
				+ n + " % 2 = 0 THEN 'payment API answered 503' END FROM " + from;
	}

	/**
	 * A text search that finds nothing, so it reads its whole window (the most recent
	 * jobs, payloads and error details included), and an exact error code shared by every
	 * matching job: the two searches whose cost grows with the table.
	 */
	private void search(String store, QueueInsights insights) {
		for (int window : new int[] { JobSearch.DEFAULT_WINDOW, JobSearch.MAX_WINDOW }) {
			long start = System.nanoTime();
			SearchResult result = insights.search(new JobSearch("no-such-text", true, window, 20));
			this.rows
				.add(String.format("| search: text in the %,d most recent jobs, none found (%s) | %.0f ms | | | | |",
						result.scanned(), store, (System.nanoTime() - start) / 1e6));
		}
		long start = System.nanoTime();
		SearchResult result = insights.search(JobSearch.of(ERROR_CODE, true));
		this.rows
			.add(String.format("| search: error code %s, %,d jobs have it, newest %d shown (%s) | %.0f ms | | | | |",
					ERROR_CODE, this.jobs, result.matches().size(), store, (System.nanoTime() - start) / 1e6));
	}

	private void measure(String store, JobStore jobs, JobAdminStore admin, DataSource dataSource) {
		TimedAdmin timed = new TimedAdmin(admin);
		DefaultJobQueue queue = new DefaultJobQueue(jobs, timed, QueueNode.CODEC, new HandlerRegistry(),
				Clock.systemUTC(), new EnqueueLimits(3, 1 << 20), null);
		JobFilter failures = JobFilter.any().status(JobStatus.FAILED).errorCode(ERROR_CODE);
		long start = System.nanoTime();
		BulkResult dryRun = queue.bulk(BulkRequest.retry(failures).dryRun());
		this.rows.add(String.format("| dry run: count of %s (%s) | %.0f ms | | | | |", failures, store,
				(System.nanoTime() - start) / 1e6));
		check(dryRun.matched(), "matched by the dry run");
		run(store, queue, timed, BulkRequest.retry(failures).batchSize(this.batchSize));
		check(events(dataSource, "RETRIED"), "with a RETRIED event");
		run(store, queue, timed,
				BulkRequest.cancel(JobFilter.any().status(JobStatus.PENDING).type("pay")).batchSize(this.batchSize));
		check(events(dataSource, "CANCELLED"), "with a CANCELLED event");
	}

	private void run(String store, DefaultJobQueue queue, TimedAdmin timed, BulkRequest request) {
		timed.batches.clear();
		long start = System.nanoTime();
		BulkResult result = queue.bulk(request);
		double seconds = (System.nanoTime() - start) / 1e9;
		check(result.applied(), "changed by the bulk " + request.action().word());
		List<Long> batches = new ArrayList<>(timed.batches);
		Collections.sort(batches);
		this.rows.add(String.format("| bulk %s: %s (%s) | %.1f s | %,.0f | %d | %.1f ms | %.1f ms |",
				request.action().word(), request.filter(), store, seconds, result.applied() / seconds, result.batches(),
				batches.get(batches.size() - 1) / 1e6, batches.get(batches.size() / 2) / 1e6));
	}

	private static long events(DataSource dataSource, String event) {
		try (Connection connection = dataSource.getConnection();
				PreparedStatement select = connection
					.prepareStatement("SELECT count(*) FROM job_events WHERE event = ? AND actor = 'api'")) {
			select.setString(1, event);
			try (ResultSet rows = select.executeQuery()) {
				rows.next();
				return rows.getLong(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void check(long count, String what) {
		if (count != this.jobs) {
			throw new IllegalStateException(count + " jobs " + what + ", not " + this.jobs);
		}
	}

	/** The admin store, each bulk batch's duration recorded. */
	private static final class TimedAdmin implements JobAdminStore {

		final List<Long> batches = new ArrayList<>();

		private final JobAdminStore admin;

		TimedAdmin(JobAdminStore admin) {
			this.admin = admin;
		}

		@Override
		public List<Long> applyBulk(BulkAction action, JobFilter filter, List<Long> ids, Instant now) {
			long start = System.nanoTime();
			List<Long> changed = this.admin.applyBulk(action, filter, ids, now);
			this.batches.add(System.nanoTime() - start);
			return changed;
		}

		@Override
		public long countForBulk(BulkAction action, JobFilter filter) {
			return this.admin.countForBulk(action, filter);
		}

		@Override
		public long lastJobId() {
			return this.admin.lastJobId();
		}

		@Override
		public List<Long> selectForBulk(BulkAction action, JobFilter filter, long afterId, long throughId, int limit) {
			return this.admin.selectForBulk(action, filter, afterId, throughId, limit);
		}

		@Override
		public boolean cancel(long id, Instant now) {
			return this.admin.cancel(id, now);
		}

		@Override
		public boolean retry(long id, Instant now) {
			return this.admin.retry(id, now);
		}

		@Override
		public boolean retry(long id, Instant now, boolean forgetSteps, Runnable afterCommit) {
			return this.admin.retry(id, now, forgetSteps, afterCommit);
		}

		@Override
		public List<Long> cancelChain(long chainId, Instant now) {
			return this.admin.cancelChain(chainId, now);
		}

		@Override
		public List<Job> findChain(long chainId) {
			return this.admin.findChain(chainId);
		}

		@Override
		public Optional<Job> find(long id) {
			return this.admin.find(id);
		}

		@Override
		public boolean pause(String type, String actor, Instant now) {
			return this.admin.pause(type, actor, now);
		}

		@Override
		public boolean resume(String type) {
			return this.admin.resume(type);
		}

		@Override
		public List<PausedType> pausedTypes() {
			return this.admin.pausedTypes();
		}

	}

}
