package dev.jobqueue.benchmarks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.WorkerListener;

/**
 * What one job costs the PostgreSQL server: WAL records and bytes, and index entries
 * written (B-tree WAL records), per job lifecycle (enqueue, claim, run, success), per
 * lifecycle with one retry, per lifecycle of a job with a key (1,000 keys, claimed in
 * rounds across keys), and per lease renewal; next to the raw lifecycle program on the
 * queue's tables and on lean tables (primary keys and the partial pending index only).
 * Read from the server's own WAL with {@code pg_walinspect}, counting only the records of
 * the run's own database, so other work on the server does not count. Counts, not
 * timings: a busy machine changes none of them.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.jobqueue.benchmarks.JobCostMain [jobs] [admin url]
 * </pre>
 */
public final class JobCostMain {

	static final int RENEWED_JOBS = 100;

	static final int RENEWALS = 10;

	private final String adminUrl;

	private final int jobs;

	private final List<String> rows = new ArrayList<>();

	private JobCostMain(String adminUrl, int jobs) {
		this.adminUrl = adminUrl;
		this.jobs = jobs;
	}

	public static void main(String[] args) throws Exception {
		int jobs = (args.length > 0) ? Integer.parseInt(args[0]) : 2_000;
		String adminUrl = (args.length > 1) ? args[1] : "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
		new JobCostMain(adminUrl, jobs).run();
	}

	private void run() throws Exception {
		this.rows.add("| per job (PostgreSQL) | WAL bytes | heap records | index entries (B-tree records) | "
				+ "indexes written, entries per job |");
		this.rows.add("|---|---|---|---|---|");
		queueLifecycle(false, false);
		queueLifecycle(true, false);
		queueLifecycle(false, true);
		leaseRenewal();
		rawLifecycle(false);
		rawLifecycle(true);
		this.rows.forEach(System.out::println);
	}

	/**
	 * Single enqueues, then a burn-down by 8 workers; with a retry, each job fails once;
	 * keyed, each job has one of 1,000 keys.
	 */
	private void queueLifecycle(boolean retry, boolean keyed) throws Exception {
		try (PostgresBenchmarkMain.TempDatabase db = new PostgresBenchmarkMain.TempDatabase(this.adminUrl);
				PostgresBenchmarkMain.Node node = new PostgresBenchmarkMain.Node(db.url, 10, (payload, context) -> {
					if (retry && context.attempt() == 1) {
						throw new IllegalStateException("once more");
					}
					return null;
				});
				WalWindow wal = new WalWindow(db.url)) {
			CountDownLatch finished = new CountDownLatch(this.jobs);
			JobWorker worker = node.worker(8, Duration.ofMillis(50), new WorkerListener() {
				@Override
				public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
					if (completion.kind() == Completion.Kind.SUCCEEDED) {
						finished.countDown();
					}
				}
			});
			wal.start();
			for (int i = 0; i < this.jobs; i++) {
				JobRequest request = JobRequest.of("noop", new Payload(i));
				node.queue.enqueue(keyed ? request.key("customer-" + (i % 1000)) : request);
			}
			worker.start();
			if (!finished.await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException("the burn-down did not finish");
			}
			worker.stop();
			String name = retry ? "queue: enqueue, claim, fail, retry, claim, succeed"
					: "queue: enqueue, claim, run, succeed";
			row(keyed ? name + ", with a key (1,000 keys)" : name, wal.stop(), this.jobs);
		}
	}

	/** Renewals of running jobs' leases, after a first one that settles the rows. */
	private void leaseRenewal() throws Exception {
		try (PostgresBenchmarkMain.TempDatabase db = new PostgresBenchmarkMain.TempDatabase(this.adminUrl);
				PostgresBenchmarkMain.Node node = new PostgresBenchmarkMain.Node(db.url, 2);
				WalWindow wal = new WalWindow(db.url)) {
			Instant now = Instant.now();
			try (Connection connection = DriverManager.getConnection(db.url);
					PreparedStatement insert = connection.prepareStatement("""
							INSERT INTO jobs (type, status, payload, attempts, max_attempts, runs, run_at, created_at,
							                  started_at, heartbeat_at, lease_until, worker_id)
							SELECT 'noop', 'running', '{"n":' || g || '}', 1, 5, 1, ?, ?, ?, ?, ?, 'w1'
							FROM generate_series(1, ?) g
							""")) {
				Timestamp at = Timestamp.from(now);
				for (int i = 1; i <= 4; i++) {
					insert.setTimestamp(i, at);
				}
				insert.setTimestamp(5, Timestamp.from(now.plusSeconds(60)));
				insert.setInt(6, RENEWED_JOBS);
				insert.execute();
			}
			List<RunningJobRef> held = new ArrayList<>();
			try (Connection connection = DriverManager.getConnection(db.url);
					Statement statement = connection.createStatement();
					ResultSet ids = statement.executeQuery("SELECT id FROM jobs")) {
				while (ids.next()) {
					held.add(new RunningJobRef(ids.getLong(1), 1, true));
				}
			}
			node.storage.jobs().renewLeases("w1", held, now, now.plusSeconds(60));
			wal.start();
			for (int i = 1; i <= RENEWALS; i++) {
				Instant at = now.plusSeconds(i);
				node.storage.jobs().renewLeases("w1", held, at, at.plusSeconds(60));
			}
			row("queue: one lease renewal (per running job, after the first)", wal.stop(), RENEWED_JOBS * RENEWALS);
		}
	}

	/**
	 * The raw program of the burn-down baseline: single-statement enqueues, then claims
	 * of 100 and their outcomes in one statement each; on lean tables, every index but
	 * the primary keys and the partial pending index is dropped first.
	 */
	private void rawLifecycle(boolean lean) throws Exception {
		try (PostgresBenchmarkMain.TempDatabase db = new PostgresBenchmarkMain.TempDatabase(this.adminUrl);
				WalWindow wal = new WalWindow(db.url)) {
			if (lean) {
				dropAllButLeanIndexes(db.url);
			}
			wal.start();
			try (Connection connection = DriverManager.getConnection(db.url);
					PreparedStatement insert = connection.prepareStatement(PostgresBenchmarkMain.RAW_ENQUEUE)) {
				for (int i = 0; i < this.jobs; i++) {
					Timestamp now = Timestamp.from(Instant.now());
					insert.setString(1, "{\"n\":" + i + "}");
					insert.setTimestamp(2, now);
					insert.setTimestamp(3, now);
					insert.setTimestamp(4, now);
					try (ResultSet rows = insert.executeQuery()) {
						rows.next();
					}
				}
			}
			AtomicLong done = new AtomicLong();
			try (Connection connection = DriverManager.getConnection(db.url)) {
				PostgresBenchmarkMain.rawWorkerLoop(connection, done);
			}
			if (done.get() != this.jobs) {
				throw new IllegalStateException("raw lifecycle finished " + done.get() + " of " + this.jobs);
			}
			row(lean ? "raw lifecycle, lean tables (primary keys, partial pending index)"
					: "raw lifecycle, the queue's tables", wal.stop(), this.jobs);
		}
	}

	static void dropAllButLeanIndexes(String url) throws SQLException {
		try (Connection connection = DriverManager.getConnection(url);
				Statement statement = connection.createStatement()) {
			List<String> drop = new ArrayList<>();
			try (ResultSet indexes = statement.executeQuery("""
					SELECT i.indexrelid::regclass::text FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
					WHERE t.relname IN ('jobs', 'job_attempts', 'job_events') AND NOT i.indisprimary
					  AND i.indexrelid::regclass::text <> 'jobs_claim_idx'
					""")) {
				while (indexes.next()) {
					drop.add(indexes.getString(1));
				}
			}
			for (String index : drop) {
				statement.execute("DROP INDEX " + index);
			}
		}
	}

	private void row(String name, WalCounts counts, int per) {
		StringBuilder indexes = new StringBuilder();
		counts.btreeByRelation.forEach((relation, count) -> {
			if (indexes.length() > 0) {
				indexes.append(", ");
			}
			indexes.append(relation).append(' ').append(String.format(Locale.ROOT, "%.2f", (double) count / per));
		});
		this.rows.add(String.format(Locale.ROOT, "| %s | %.0f | %.2f | %.2f | %s |", name, (double) counts.bytes / per,
				(double) counts.heap / per, (double) counts.btree / per, indexes));
	}

	/** WAL records of one database between two points. */
	record WalCounts(long bytes, long heap, long btree, Map<String, Long> btreeByRelation) {

	}

	/**
	 * A window on the server's WAL, from {@link #start()} to {@link #stop()}, counting
	 * the records that touch the given database's relations.
	 */
	static final class WalWindow implements AutoCloseable {

		private final Connection connection;

		private final long databaseOid;

		private String startLsn;

		WalWindow(String url) throws SQLException {
			this.connection = DriverManager.getConnection(url);
			try (Statement statement = this.connection.createStatement()) {
				statement.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
				try (ResultSet oid = statement
					.executeQuery("SELECT oid FROM pg_database WHERE datname = current_database()")) {
					oid.next();
					this.databaseOid = oid.getLong(1);
				}
			}
		}

		void start() throws SQLException {
			this.startLsn = lsn();
		}

		WalCounts stop() throws SQLException {
			String end = lsn();
			long bytes = 0;
			long heap = 0;
			long btree = 0;
			Map<String, Long> byRelation = new LinkedHashMap<>();
			try (PreparedStatement records = this.connection.prepareStatement("""
					SELECT r.resource_manager, sum(r.record_length + r.fpi_length), count(*),
					       coalesce(c.relname, substring(r.block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)'))
					FROM pg_get_wal_records_info(?::pg_lsn, ?::pg_lsn) r
					LEFT JOIN pg_class c
					  ON c.relfilenode::text = substring(r.block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)')
					WHERE r.block_ref LIKE ?
					GROUP BY 1, 4 ORDER BY 3 DESC
					""")) {
				records.setString(1, this.startLsn);
				records.setString(2, end);
				records.setString(3, "%rel %/" + this.databaseOid + "/%");
				try (ResultSet rows = records.executeQuery()) {
					while (rows.next()) {
						String manager = rows.getString(1);
						bytes += rows.getLong(2);
						if (manager.startsWith("Heap")) {
							heap += rows.getLong(3);
						}
						else if (manager.equals("Btree")) {
							btree += rows.getLong(3);
							byRelation.merge(rows.getString(4), rows.getLong(3), Long::sum);
						}
					}
				}
			}
			return new WalCounts(bytes, heap, btree, byRelation);
		}

		private String lsn() throws SQLException {
			try (Statement statement = this.connection.createStatement();
					ResultSet rows = statement.executeQuery("SELECT pg_current_wal_lsn()::text")) {
				rows.next();
				return rows.getString(1);
			}
		}

		@Override
		public void close() throws SQLException {
			this.connection.close();
		}

	}

}
