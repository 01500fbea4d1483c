package dev.jobqueue.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.WorkerListener;

/**
 * What one job costs SQLite, the counterpart of {@link JobCostMain}: per job lifecycle
 * (enqueue, claim, run, success), per lifecycle with one failed attempt and its retry,
 * and per lease renewal of a running job, next to the raw lifecycle program of the
 * burn-down baseline on the queue's tables and on lean tables. Counted from the
 * write-ahead log of a database file of each measurement's own ({@link SqliteWalChanges}:
 * frames and their bytes, rows and index entries each b-tree gained and lost), not timed,
 * so a busy machine changes none of the figures. A read transaction opened on the empty
 * log keeps every checkpoint (the queue's own checkpointer included) from copying the log
 * back and starting it over while it is measured.
 * <p>
 * Each measurement runs twice: once counted from the log, once with triggers that log the
 * row changes, from which {@link SqliteDerivedChanges} derives what each index must have
 * written by its definition in {@code sqlite_master}. The two must agree, index by index
 * (but for the outcome rollup and the workers' heartbeats, whose writes depend on the
 * run's timing); the run fails if they do not, if a figure is zero, or if the lean tables
 * do not write fewer index entries than the queue's tables. Index names are read from the
 * schema, so the same command measures any version of it.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.jobqueue.benchmarks.SqliteJobCostMain [jobs] [--dir=DIR]
 * </pre>
 */
public final class SqliteJobCostMain {

	static final String HEADER = "| per job (SQLite) | WAL bytes | WAL frames | rows written | index entries added "
			+ "| index entries removed | derived from the schema | per index: entries added + removed (pages written) "
			+ "| per table: rows added + removed (pages written) |";

	private final Path directory;

	private final int jobs;

	private SqliteJobCostMain(Path directory, int jobs) {
		this.directory = directory;
		this.jobs = jobs;
	}

	public static void main(String[] args) throws Exception {
		int jobs = 2_000;
		Path directory = null;
		for (String arg : args) {
			if (arg.equals("--quick")) {
				jobs = 100;
			}
			else if (arg.startsWith("--dir=")) {
				directory = Path.of(arg.substring("--dir=".length()));
			}
			else if (arg.matches("[0-9]+")) {
				jobs = Integer.parseInt(arg);
			}
			else {
				System.err.println("Unknown argument " + arg + "; use [jobs] [--quick] [--dir=DIR]");
				System.exit(2);
			}
		}
		Path temporary = (directory != null) ? null : Files.createTempDirectory("jobqueue-cost");
		List<Cost> costs = measure((directory != null) ? directory : temporary, jobs);
		System.out.println(HEADER);
		System.out.println("|---|--:|--:|--:|--:|--:|---|---|---|");
		costs.forEach((cost) -> System.out.println(cost.row()));
		List<String> problems = problems(costs);
		if (temporary != null) {
			Files.deleteIfExists(temporary);
		}
		if (!problems.isEmpty()) {
			problems.forEach((problem) -> System.err.println("FAILED: " + problem));
			System.exit(1);
		}
	}

	/**
	 * Runs every measurement with {@code jobs} jobs in database files in
	 * {@code directory}.
	 */
	static List<Cost> measure(Path directory, int jobs) throws Exception {
		SqliteJobCostMain main = new SqliteJobCostMain(directory, jobs);
		List<Cost> costs = new ArrayList<>();
		costs.add(main.cost("queue: enqueue, claim, run, succeed", jobs,
				(db, window) -> main.queueLifecycle(db, window, false)));
		costs.add(main.cost("queue: enqueue, claim, fail, retry, claim, succeed", jobs,
				(db, window) -> main.queueLifecycle(db, window, true)));
		costs.add(main.cost("queue: one lease renewal (per running job, after the first)",
				JobCostMain.RENEWED_JOBS * JobCostMain.RENEWALS, main::leaseRenewal));
		costs.add(main.cost(Cost.RAW_QUEUE_TABLES, jobs, (db, window) -> main.rawLifecycle(db, window, false)));
		costs.add(main.cost(Cost.RAW_LEAN_TABLES, jobs, (db, window) -> main.rawLifecycle(db, window, true)));
		return costs;
	}

	/**
	 * What is wrong with the figures: a zero count, a derivation that differs from the
	 * log, lean tables that write no fewer index entries than the queue's.
	 */
	static List<String> problems(List<Cost> costs) {
		List<String> problems = new ArrayList<>();
		Map<String, Cost> byName = new HashMap<>();
		for (Cost cost : costs) {
			byName.put(cost.name, cost);
			if (cost.log.bytes() == 0 || cost.log.frames() == 0 || cost.rowsWritten() == 0) {
				problems.add(cost.name + ": nothing counted (" + cost.log.frames() + " frames, " + cost.rowsWritten()
						+ " rows)");
			}
			if (!cost.name.contains("lease renewal") && cost.indexEntriesAdded() == 0) {
				problems.add(cost.name + ": no index entry counted");
			}
			cost.differences().forEach((difference) -> problems.add(cost.name + ": " + difference));
		}
		Cost lean = byName.get(Cost.RAW_LEAN_TABLES);
		Cost queueTables = byName.get(Cost.RAW_QUEUE_TABLES);
		if (lean != null && queueTables != null && lean.indexEntriesAdded()
				+ lean.indexEntriesRemoved() >= queueTables.indexEntriesAdded() + queueTables.indexEntriesRemoved()) {
			problems.add("the lean tables write no fewer index entries than the queue's tables");
		}
		return problems;
	}

	/** One measurement: what it ran, and when the counted window opens. */
	@FunctionalInterface
	private interface Measured {

		void run(Db db, Window window) throws Exception;

	}

	/** Opens the counted window once the measurement's set-up is done. */
	@FunctionalInterface
	private interface Window {

		void open() throws Exception;

	}

	/**
	 * Runs a measurement twice: counted from the log, and derived from the row changes.
	 */
	private Cost cost(String name, int per, Measured measured) throws Exception {
		Db counted = Db.file(this.directory, "cost", "NORMAL");
		try (Connection pin = counted.connect()) {
			measured.run(counted, () -> pinEmptyLog(pin));
			Set<String> tables = new HashSet<>();
			Set<String> indexes = new HashSet<>();
			try (Statement statement = pin.createStatement();
					ResultSet names = statement.executeQuery("SELECT type, name FROM sqlite_master")) {
				while (names.next()) {
					(names.getString(1).equals("index") ? indexes : tables).add(names.getString(2));
				}
				tables.add("sqlite_schema");
			}
			SqliteWalChanges.Log log = readPinnedLog(counted.file, pin);
			pin.commit();
			Db derivedDb = Db.file(this.directory, "derived", "NORMAL");
			try (Connection connection = derivedDb.connect()) {
				SqliteDerivedChanges[] changes = new SqliteDerivedChanges[1];
				measured.run(derivedDb,
						() -> changes[0] = SqliteDerivedChanges.install(connection, Db.TABLES.schemaHistory()));
				return new Cost(name, per, log, changes[0].derive(connection), tables, indexes);
			}
			finally {
				derivedDb.delete();
			}
		}
		finally {
			counted.delete();
		}
	}

	/**
	 * Copies the log into the database and empties it, then opens a read transaction on
	 * the empty log, which no checkpoint can copy past until it ends.
	 */
	static void pinEmptyLog(Connection pin) throws SQLException {
		try (Statement statement = pin.createStatement()) {
			try (ResultSet result = statement.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
				result.next();
				if (result.getInt(1) != 0 || result.getInt(2) > 0) {
					throw new IllegalStateException(
							"Could not empty the log before counting: another connection " + "is reading or writing");
				}
			}
			pin.setAutoCommit(false);
			try (ResultSet read = statement.executeQuery("SELECT count(*) FROM sqlite_master")) {
				read.next();
			}
		}
	}

	/**
	 * Reads the log that {@link #pinEmptyLog} pinned, with the page owners that the
	 * pinned read transaction still sees: where each page was before the log's first
	 * frame.
	 */
	static SqliteWalChanges.Log readPinnedLog(Path file, Connection pin) throws SQLException, IOException {
		Map<Long, String> owners = new HashMap<>();
		try (Statement statement = pin.createStatement();
				ResultSet pages = statement.executeQuery("SELECT pageno, name FROM dbstat")) {
			while (pages.next()) {
				owners.put(pages.getLong(1), pages.getString(2));
			}
		}
		return SqliteWalChanges.read(file, owners);
	}

	/**
	 * Single enqueues, then a burn-down by 8 workers; with a retry, each job fails once
	 * and runs again after a backoff of half a second to a second.
	 */
	private void queueLifecycle(Db db, Window window, boolean retry) throws Exception {
		try (QueueNode node = new QueueNode(db).handle((payload, context) -> {
			if (retry && context.attempt() == 1) {
				throw new IllegalStateException("once more");
			}
			return null;
		})) {
			CountDownLatch finished = new CountDownLatch(this.jobs);
			window.open();
			for (int i = 0; i < this.jobs; i++) {
				node.queue.enqueue(QueueNode.TYPE, new Payload(i));
			}
			node.startWorker(8, false, Duration.ofMillis(50), new WorkerListener() {
				@Override
				public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
					if (completion.kind() == Completion.Kind.SUCCEEDED) {
						finished.countDown();
					}
				}
			}, new RetryPolicy(Duration.ofSeconds(1), Duration.ofMinutes(1), Math::random));
			if (!finished.await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException("the burn-down did not finish");
			}
			node.stopWorker();
		}
	}

	/** Renewals of running jobs' leases through the store, after a first one. */
	private void leaseRenewal(Db db, Window window) throws Exception {
		try (QueueNode node = new QueueNode(db)) {
			Instant now = Instant.now();
			long at = now.toEpochMilli();
			db.execute("""
					INSERT INTO jobs (type, status, payload, attempts, max_attempts, runs, run_at, created_at,
					                  started_at, heartbeat_at, lease_until, worker_id)
					WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
					SELECT ?, 'running', '{"n":' || i || '}', 1, 5, 1, ?, ?, ?, ?, ?, 'w1' FROM n
					""", JobCostMain.RENEWED_JOBS, QueueNode.TYPE, at, at, at, at, at + 60_000);
			List<RunningJobRef> held = new ArrayList<>();
			try (Connection connection = db.connect();
					PreparedStatement ids = connection.prepareStatement("SELECT id FROM jobs");
					ResultSet rows = ids.executeQuery()) {
				while (rows.next()) {
					held.add(new RunningJobRef(rows.getLong(1), 1, true));
				}
			}
			node.store.renewLeases("w1", held, now, now.plusSeconds(60));
			window.open();
			for (int i = 1; i <= JobCostMain.RENEWALS; i++) {
				Instant renewed = now.plusSeconds(i);
				node.store.renewLeases("w1", held, renewed, renewed.plusSeconds(60));
			}
		}
	}

	/**
	 * The raw program of the burn-down baseline ({@link Raw}): single enqueues (the job
	 * and its event), then claims of 100 and their outcomes, a transaction each; on lean
	 * tables, every index but the primary keys and the partial pending index is dropped
	 * first.
	 */
	private void rawLifecycle(Db db, Window window, boolean lean) throws Exception {
		if (lean) {
			db.leanTables();
		}
		window.open();
		Raw.singleInserts(db, 1, this.jobs);
		Raw.lifecycle(db, 1, 100);
		long left = db.pendingOrRunning();
		if (left != 0) {
			throw new IllegalStateException("the raw lifecycle left " + left + " jobs unfinished");
		}
	}

	/** The figures of one measurement. */
	record Cost(String name, int per, SqliteWalChanges.Log log, Map<String, SqliteWalChanges.Btree> derived,
			Set<String> tables, Set<String> indexes) {

		/**
		 * Tables written by time, not per job: the per-minute outcome rollup and the
		 * counts of finished jobs (once per round of outcomes) and the workers' table (at
		 * each heartbeat). How often depends on the run's timing, so the counted run and
		 * the derived one write them a different number of times; they are shown, not
		 * compared.
		 */
		static final Set<String> WRITTEN_PER_ROUND = Set.of("job_outcome_minutes", "job_finished_counts",
				"job_workers");

		static final String RAW_QUEUE_TABLES = "raw lifecycle, the queue's tables";

		static final String RAW_LEAN_TABLES = "raw lifecycle, lean tables (primary keys, partial pending index)";

		long rowsWritten() {
			return sum(this.tables, true, false);
		}

		long indexEntriesAdded() {
			return sum(this.indexes, true, false);
		}

		long indexEntriesRemoved() {
			return sum(this.indexes, false, true);
		}

		private long sum(Set<String> names, boolean added, boolean removed) {
			long sum = 0;
			for (Map.Entry<String, SqliteWalChanges.Btree> btree : this.log.btrees().entrySet()) {
				if (names.contains(btree.getKey()) && !btree.getKey().startsWith("sqlite_")) {
					sum += (added ? btree.getValue().added() : 0) + (removed ? btree.getValue().removed() : 0);
				}
			}
			return sum;
		}

		/**
		 * Each table and index of the queue whose cells added or removed, as counted from
		 * the log, differ from those derived from the row changes.
		 */
		List<String> differences() {
			Set<String> names = new TreeSet<>(this.derived.keySet());
			this.log.btrees().forEach((name, btree) -> {
				if (btree.added() + btree.removed() > 0) {
					names.add(name);
				}
			});
			List<String> differences = new ArrayList<>();
			SqliteWalChanges.Btree none = new SqliteWalChanges.Btree(0, 0, 0);
			for (String name : names) {
				if (name.startsWith("sqlite_") || WRITTEN_PER_ROUND.contains(name)) {
					continue;
				}
				SqliteWalChanges.Btree counted = this.log.btrees().getOrDefault(name, none);
				SqliteWalChanges.Btree derived = this.derived.getOrDefault(name, none);
				if (counted.added() != derived.added() || counted.removed() != derived.removed()) {
					differences.add(name + " derived " + derived.added() + " added + " + derived.removed()
							+ " removed, the log has " + counted.added() + " + " + counted.removed());
				}
			}
			return differences;
		}

		String row() {
			List<String> differences = differences();
			String check = differences.isEmpty() ? "equal" : "**differs**: " + String.join("; ", differences);
			return String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |", this.name,
					(double) this.log.bytes() / this.per, (double) this.log.frames() / this.per,
					(double) rowsWritten() / this.per, (double) indexEntriesAdded() / this.per,
					(double) indexEntriesRemoved() / this.per, check, perBtree(true), perBtree(false));
		}

		/**
		 * Per index (or per table, with the pages of SQLite's own tables and the free
		 * list): cells added + removed (pages written), per job, most cells first.
		 */
		private String perBtree(boolean indexes) {
			StringBuilder text = new StringBuilder();
			this.log.btrees()
				.entrySet()
				.stream()
				.filter((btree) -> this.indexes.contains(btree.getKey()) == indexes)
				.sorted((a, b) -> Long.compare(b.getValue().added() + b.getValue().removed(),
						a.getValue().added() + a.getValue().removed()))
				.forEach((btree) -> {
					if (text.length() > 0) {
						text.append(", ");
					}
					SqliteWalChanges.Btree counts = btree.getValue();
					text.append(btree.getKey()).append(' ');
					if (counts.added() + counts.removed() > 0) {
						text.append(perJob(counts.added())).append(" + ").append(perJob(counts.removed())).append(' ');
					}
					text.append('(').append(perJob(counts.frames())).append(')');
				});
			return text.toString();
		}

		private String perJob(long count) {
			return String.format(Locale.ROOT, "%.2f", (double) count / this.per);
		}

	}

}
