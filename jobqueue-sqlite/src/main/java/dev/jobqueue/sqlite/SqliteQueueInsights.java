package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.JobProgress;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.QueueSnapshot;
import dev.jobqueue.core.store.QueueSnapshot.ErrorCount;
import dev.jobqueue.core.store.QueueSnapshot.ErrorSummary;
import dev.jobqueue.core.store.QueueSnapshot.StorageState;
import dev.jobqueue.core.store.QueueSnapshot.WorkerState;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * {@link QueueInsights} on SQLite. A snapshot is a handful of statements in one read
 * transaction, each answered from an index (see {@code V3__observability_indexes.sql});
 * only the worker table, one row per process, is read whole. Job lists and single jobs
 * are {@link SqliteJobDetails}. Statements follow the conventions of
 * {@link SqliteJobStore}.
 */
public final class SqliteQueueInsights implements QueueInsights {

	private static final String SUMMARY_COLUMNS = SqliteJobDetails.SUMMARY_COLUMNS;

	/** Answered from jobs_status_type_idx alone. */
	private static final String COUNTS = """
			SELECT type, status, count(*) FROM {jobs} GROUP BY status, type
			""";

	/**
	 * Due pending jobs that a worker would claim now: a paused type, or one no live
	 * worker handles, is held, not late. The workers' types are a comma-separated list,
	 * one row per process.
	 */
	private static final String CLAIMABLE = """
			status = 'pending' AND run_at <= :now AND type NOT IN (SELECT type FROM {paused})
			AND EXISTS (SELECT 1 FROM {workers} w WHERE w.heartbeat_at >= :alive_after
			            AND instr(',' || w.types || ',', ',' || {jobs}.type || ',') > 0)""";

	private static final String CLAIMABLE_COUNT = """
			SELECT count(*) FROM {jobs} WHERE %s
			""".formatted(CLAIMABLE);

	private static final String OLDEST_CLAIMABLE = """
			SELECT %s FROM {jobs} WHERE %s ORDER BY run_at, id LIMIT 1
			""".formatted(SUMMARY_COLUMNS, CLAIMABLE);

	private static final String OLDEST_RUNNING = """
			SELECT %s FROM {jobs} INDEXED BY {p}jobs_running_idx
			WHERE status = 'running' ORDER BY started_at, id LIMIT :limit
			""".formatted(SUMMARY_COLUMNS);

	private static final String STUCK_COUNT = """
			SELECT count(*) FROM {jobs} INDEXED BY {p}jobs_running_idx
			WHERE status = 'running' AND heartbeat_at < :heartbeat_before
			""";

	private static final String STUCK = """
			SELECT %s FROM {jobs} INDEXED BY {p}jobs_running_idx
			WHERE status = 'running' AND heartbeat_at < :heartbeat_before ORDER BY heartbeat_at, id LIMIT :limit
			""".formatted(SUMMARY_COLUMNS);

	/** Held jobs have a run_at no clock reaches (see HeldEnqueue). */
	private static final String HELD_COUNT = """
			SELECT count(*) FROM {jobs}
			WHERE held_run_at IS NOT NULL AND run_at = :never AND created_at < :enqueued_before
			""";

	private static final String HELD = """
			SELECT %s FROM {jobs}
			WHERE held_run_at IS NOT NULL AND run_at = :never AND created_at < :enqueued_before
			ORDER BY id LIMIT :limit
			""".formatted(SUMMARY_COLUMNS);

	/** The WHERE clause must match the partial index's exactly for SQLite to use it. */
	private static final String RETRIES = """
			SELECT type, attempts, count(*) FROM {jobs} INDEXED BY {p}jobs_unfinished_attempts_idx
			WHERE status IN ('pending', 'running', 'failed')
			GROUP BY type, attempts
			""";

	private static final String ERRORS = """
			SELECT error_code, type, status, count(*) FROM {jobs} INDEXED BY {p}jobs_error_code_idx
			WHERE error_code IS NOT NULL AND status IN ('pending', 'running', 'failed')
			GROUP BY error_code, type, status
			""";

	private static final String WORKERS = """
			SELECT worker_id, host, pid, types, concurrency, started_at, heartbeat_at FROM {workers}
			""";

	/**
	 * A row that is always written and always rolled back: proves the file takes writes.
	 */
	/**
	 * Any healthy database answers at once: in WAL mode a reader never waits for the
	 * writer.
	 */
	private static final String READ_PROBE = """
			SELECT count(*) FROM {jobs} WHERE id = -1
			""";

	private final SqliteDatabase database;

	private final Tables tables;

	private final SqliteJobDetails details;

	private final SqliteOutcomeHistory outcomes;

	private final Sql counts;

	private final Sql claimableCount;

	private final Sql oldestClaimable;

	private final Sql oldestRunning;

	private final Sql stuckCount;

	private final Sql heldCount;

	private final Sql held;

	private final Sql stuck;

	private final Sql retries;

	private final Sql errors;

	private final Sql workers;

	public SqliteQueueInsights(SqliteDatabase database, Tables tables) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.details = new SqliteJobDetails(tables);
		this.outcomes = new SqliteOutcomeHistory(tables);
		this.counts = tables.sql(COUNTS);
		this.claimableCount = tables.sql(CLAIMABLE_COUNT);
		this.oldestClaimable = tables.sql(OLDEST_CLAIMABLE);
		this.oldestRunning = tables.sql(OLDEST_RUNNING);
		this.stuckCount = tables.sql(STUCK_COUNT);
		this.heldCount = tables.sql(HELD_COUNT);
		this.held = tables.sql(HELD);
		this.stuck = tables.sql(STUCK);
		this.retries = tables.sql(RETRIES);
		this.errors = tables.sql(ERRORS);
		this.workers = tables.sql(WORKERS);
	}

	@Override
	public QueueSnapshot snapshot(Instant now, SnapshotSettings settings) {
		return this.database.read("read a snapshot of the queue", (connection) -> {
			// One read transaction: every statement sees the same state of the file (WAL
			// keeps it for us).
			try (Statement transaction = connection.createStatement()) {
				transaction.execute("BEGIN");
				QueueSnapshot snapshot;
				try {
					snapshot = snapshot(connection, now, settings);
				}
				catch (SQLException | RuntimeException ex) {
					endQuietly(transaction);
					throw ex;
				}
				transaction.execute("COMMIT");
				return snapshot;
			}
		});
	}

	private QueueSnapshot snapshot(Connection connection, Instant now, SnapshotSettings settings) throws SQLException {
		Map<String, Map<JobStatus, Long>> counts = counts(connection);
		Instant aliveAfter = now.minus(settings.workerDeadAfter());
		long claimable;
		try (SqlStatement count = this.claimableCount.prepare(connection)) {
			claimable = count.bind("now", now).bind("alive_after", aliveAfter).queryLong();
		}
		JobSummary oldestClaimable = oldestClaimable(connection, now, aliveAfter);
		List<JobSummary> oldestRunning;
		try (SqlStatement select = this.oldestRunning.prepare(connection)) {
			oldestRunning = SqliteJobDetails.summaries(select.bind("limit", settings.jobsListed()));
		}
		StuckJobs stuck = stuck(connection, now.minus(settings.stuckAfter()), settings.jobsListed());
		Map<String, Map<Integer, Long>> retriesByType = retriesByType(connection);
		Map<Integer, Long> retries = new TreeMap<>();
		retriesByType.values()
			.forEach(
					(byAttempts) -> byAttempts.forEach((attempts, count) -> retries.merge(attempts, count, Long::sum)));
		ErrorSummary errors = errors(connection, settings.topErrors());
		List<WorkerState> workers = workers(connection, now.minus(settings.workerDeadAfter()));
		return new QueueSnapshot(now, counts, claimable, oldestClaimable, oldestRunning, stuck, retries, retriesByType,
				errors, workers, unhandled(counts, workers), storage(connection));
	}

	private static void endQuietly(Statement transaction) {
		try {
			transaction.execute("ROLLBACK");
		}
		catch (SQLException ex) {
			// The connection is likely broken; the pool discards it.
		}
	}

	@Override
	public Optional<JobSummary> oldestClaimable(Instant now, Instant workersAliveAfter) {
		return Optional.ofNullable(this.database.read("find the oldest claimable job",
				(connection) -> oldestClaimable(connection, now, workersAliveAfter)));
	}

	private JobSummary oldestClaimable(Connection connection, Instant now, Instant aliveAfter) throws SQLException {
		try (SqlStatement select = this.oldestClaimable.prepare(connection)) {
			List<JobSummary> oldest = SqliteJobDetails
				.summaries(select.bind("now", now).bind("alive_after", aliveAfter));
			return oldest.isEmpty() ? null : oldest.get(0);
		}
	}

	@Override
	public StuckJobs stuck(Instant heartbeatBefore, int limit) {
		return this.database.read("find stuck jobs", (connection) -> stuck(connection, heartbeatBefore, limit));
	}

	private StuckJobs stuck(Connection connection, Instant heartbeatBefore, int limit) throws SQLException {
		long count;
		try (SqlStatement select = this.stuckCount.prepare(connection)) {
			count = select.bind("heartbeat_before", heartbeatBefore).queryLong();
		}
		if (count == 0) {
			return new StuckJobs(0, List.of());
		}
		try (SqlStatement select = this.stuck.prepare(connection)) {
			return new StuckJobs(count,
					SqliteJobDetails.summaries(select.bind("heartbeat_before", heartbeatBefore).bind("limit", limit)));
		}
	}

	@Override
	public HeldJobs held(Instant enqueuedBefore, int limit) {
		return this.database.read("find jobs held since before " + enqueuedBefore, (connection) -> {
			long count;
			try (SqlStatement select = this.heldCount.prepare(connection)) {
				count = select.bind("never", HeldEnqueue.NEVER).bind("enqueued_before", enqueuedBefore).queryLong();
			}
			if (count == 0) {
				return new HeldJobs(0, List.of());
			}
			try (SqlStatement select = this.held.prepare(connection)) {
				return new HeldJobs(count,
						SqliteJobDetails.summaries(select.bind("never", HeldEnqueue.NEVER)
							.bind("enqueued_before", enqueuedBefore)
							.bind("limit", limit)));
			}
		});
	}

	@Override
	public Optional<JobDetail> job(long id, int payloadPreviewChars) {
		return this.database.read("read job " + id,
				(connection) -> this.details.job(connection, id, payloadPreviewChars));
	}

	@Override
	public Map<Long, JobProgress> progress(Collection<Long> jobIds) {
		if (jobIds.isEmpty()) {
			return Map.of();
		}
		return this.database.read("read the progress of running jobs",
				(connection) -> this.details.progress(connection, jobIds));
	}

	@Override
	public JobPage jobs(JobQuery query) {
		return this.database.read("list jobs", (connection) -> this.details.jobs(connection, query));
	}

	@Override
	public List<Outcomes> outcomes(Instant from, Instant to, Duration slot) {
		return this.database.read("count run outcomes over time",
				(connection) -> this.outcomes.outcomes(connection, from, to, slot));
	}

	@Override
	public void checkAvailable() {
		String refusal = this.database.read("check that the queue database can be read", (connection) -> {
			try (Statement statement = connection.createStatement();
					ResultSet rows = statement.executeQuery(this.tables.expand(READ_PROBE))) {
				rows.next();
			}
			return writeRefusal(connection);
		});
		if (refusal != null) {
			throw new JobQueueException("The queue database " + this.database.location() + " cannot be written: the "
					+ "database is read-only: " + refusal + ". Make the file and its -wal/-shm files writable by this "
					+ "process, on a file system mounted read-write.");
		}
	}

	/**
	 * Why writes would be refused, found without a lock: the connection's open mode, then
	 * the file's.
	 */
	private String writeRefusal(Connection connection) throws SQLException {
		if (connection.isReadOnly()) {
			return "the connection was opened read-only";
		}
		try (Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("PRAGMA query_only")) {
			if (rows.next() && rows.getInt(1) != 0) {
				return "PRAGMA query_only is on";
			}
		}
		return SqliteErrors.writeRefusal(this.database.location());
	}

	/**
	 * The query plans of the snapshot's statements but the worker table's, for tests that
	 * each uses an index.
	 */
	Map<String, List<String>> explainSnapshot(Instant now) {
		Map<String, String> statements = new LinkedHashMap<>();
		statements.put("COUNTS", COUNTS);
		statements.put("CLAIMABLE_COUNT", CLAIMABLE_COUNT);
		statements.put("OLDEST_CLAIMABLE", OLDEST_CLAIMABLE);
		statements.put("OLDEST_RUNNING", OLDEST_RUNNING);
		statements.put("STUCK_COUNT", STUCK_COUNT);
		statements.put("STUCK", STUCK);
		statements.put("RETRIES", RETRIES);
		statements.put("ERRORS", ERRORS);
		return this.database.read("explain the snapshot queries", (connection) -> {
			Map<String, List<String>> plans = new LinkedHashMap<>();
			for (Map.Entry<String, String> statement : statements.entrySet()) {
				Sql explain = this.tables.sql("EXPLAIN QUERY PLAN " + statement.getValue());
				List<String> lines = new ArrayList<>();
				try (SqlStatement select = explain.prepare(connection)) {
					for (String name : explain.names()) {
						select.bind(name, name.equals("limit") ? 10 : now.toEpochMilli());
					}
					try (ResultSet rows = select.executeQuery()) {
						while (rows.next()) {
							lines.add(rows.getString("detail"));
						}
					}
				}
				plans.put(statement.getKey(), lines);
			}
			return plans;
		});
	}

	/** The query plans of {@link #outcomes}, for tests. */
	List<String> explainOutcomes() {
		return this.database.read("explain the outcome history", this.outcomes::explain);
	}

	/** The query plan of a job list, for tests. */
	List<String> explainJobs(JobQuery query) {
		return this.database.read("explain a job list", (connection) -> this.details.explain(connection, query));
	}

	private Map<String, Map<JobStatus, Long>> counts(Connection connection) throws SQLException {
		Map<String, Map<JobStatus, Long>> counts = new TreeMap<>();
		try (SqlStatement select = this.counts.prepare(connection); ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				counts.computeIfAbsent(rows.getString(1), (type) -> new EnumMap<>(JobStatus.class))
					.put(JobStatus.fromDbValue(rows.getString(2)), rows.getLong(3));
			}
		}
		return counts;
	}

	private Map<String, Map<Integer, Long>> retriesByType(Connection connection) throws SQLException {
		Map<String, Map<Integer, Long>> retries = new TreeMap<>();
		try (SqlStatement select = this.retries.prepare(connection); ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				retries.computeIfAbsent(rows.getString(1), (type) -> new TreeMap<>())
					.put(rows.getInt(2), rows.getLong(3));
			}
		}
		return retries;
	}

	private ErrorSummary errors(Connection connection, int top) throws SQLException {
		Map<String, long[]> totals = new HashMap<>();
		Map<String, Map<String, Long>> byType = new HashMap<>();
		try (SqlStatement select = this.errors.prepare(connection); ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				String code = rows.getString(1);
				long count = rows.getLong(4);
				long[] total = totals.computeIfAbsent(code, (key) -> new long[2]);
				total["failed".equals(rows.getString(3)) ? 0 : 1] += count;
				byType.computeIfAbsent(code, (key) -> new TreeMap<>()).merge(rows.getString(2), count, Long::sum);
			}
		}
		List<String> codes = new ArrayList<>(totals.keySet());
		codes.sort(Comparator.comparingLong((String code) -> totals.get(code)[0] + totals.get(code)[1])
			.reversed()
			.thenComparing(Comparator.naturalOrder()));
		List<ErrorCount> listed = new ArrayList<>();
		long other = 0;
		for (String code : codes) {
			long[] total = totals.get(code);
			if (listed.size() < top) {
				listed.add(new ErrorCount(code, total[0] + total[1], total[0], total[1], byType.get(code)));
			}
			else {
				other += total[0] + total[1];
			}
		}
		return new ErrorSummary(listed, other, codes.size());
	}

	private List<WorkerState> workers(Connection connection, Instant deadBefore) throws SQLException {
		List<WorkerState> workers = new ArrayList<>();
		try (SqlStatement select = this.workers.prepare(connection); ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				String types = rows.getString(4);
				Set<String> typeSet = types.isEmpty() ? Set.of()
						: Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(types.split(","))));
				Instant heartbeat = Instant.ofEpochMilli(rows.getLong(7));
				workers
					.add(new WorkerState(rows.getString(1), rows.getString(2), rows.getLong(3), typeSet, rows.getInt(5),
							Instant.ofEpochMilli(rows.getLong(6)), heartbeat, !heartbeat.isBefore(deadBefore)));
			}
		}
		workers.sort(Comparator.comparing(WorkerState::startedAt).thenComparing(WorkerState::workerId));
		return workers;
	}

	private static Map<String, Long> unhandled(Map<String, Map<JobStatus, Long>> counts, List<WorkerState> workers) {
		Set<String> handled = new HashSet<>();
		for (WorkerState worker : workers) {
			if (worker.alive()) {
				handled.addAll(worker.types());
			}
		}
		Map<String, Long> unhandled = new TreeMap<>();
		counts.forEach((type, byStatus) -> {
			long pending = byStatus.getOrDefault(JobStatus.PENDING, 0L);
			if (pending > 0 && !handled.contains(type)) {
				unhandled.put(type, pending);
			}
		});
		return unhandled;
	}

	private StorageState storage(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			long pageSize = Pragmas.number(statement, "page_size");
			long pageCount = Pragmas.number(statement, "page_count");
			long freePages = Pragmas.number(statement, "freelist_count");
			Path file = Pragmas.mainFile(statement);
			long databaseBytes = (file != null) ? Pragmas.sizeOf(file, pageSize * pageCount) : pageSize * pageCount;
			long walBytes = (file != null) ? Pragmas.sizeOf(Pragmas.walOf(file), 0) : 0;
			return new StorageState((file != null) ? file.toString() : this.database.location(), databaseBytes,
					walBytes, pageSize, pageCount, freePages, this.database.busyRetries());
		}
	}

}
