package dev.jobqueue.sqlite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
import dev.jobqueue.core.QueueInsights;
import dev.jobqueue.core.QueueSnapshot;
import dev.jobqueue.core.QueueSnapshot.ErrorCount;
import dev.jobqueue.core.QueueSnapshot.ErrorSummary;
import dev.jobqueue.core.QueueSnapshot.StorageState;
import dev.jobqueue.core.QueueSnapshot.WorkerState;

/**
 * {@link QueueInsights} on SQLite. A snapshot is a handful of statements on one connection, each answered
 * from an index (see {@code V3__observability_indexes.sql}); only the worker table, one row per process, is
 * read whole. Statements use the same {@code {jobs}}-style placeholders as {@link SqliteJobStore}.
 */
public final class SqliteQueueInsights implements QueueInsights {

	private static final String SUMMARY_COLUMNS = """
			id, type, status, priority, attempts, max_attempts, created_at, run_at, started_at, finished_at,
			worker_id, heartbeat_at, error_code""";

	/** Answered from jobs_status_type_idx alone. */
	static final String COUNTS = """
			SELECT type, status, count(*) FROM {jobs} GROUP BY status, type
			""";

	static final String CLAIMABLE_COUNT = """
			SELECT count(*) FROM {jobs} WHERE status = 'pending' AND run_at <= ?
			""";

	static final String OLDEST_CLAIMABLE = """
			SELECT %s FROM {jobs} WHERE status = 'pending' AND run_at <= ? ORDER BY run_at, id LIMIT 1
			""".formatted(SUMMARY_COLUMNS);

	static final String OLDEST_RUNNING = """
			SELECT %s FROM {jobs} INDEXED BY {p}jobs_running_idx
			WHERE status = 'running' ORDER BY started_at, id LIMIT ?
			""".formatted(SUMMARY_COLUMNS);

	static final String STUCK_COUNT = """
			SELECT count(*) FROM {jobs} INDEXED BY {p}jobs_running_idx
			WHERE status = 'running' AND heartbeat_at < ?
			""";

	static final String STUCK = """
			SELECT %s FROM {jobs} INDEXED BY {p}jobs_running_idx
			WHERE status = 'running' AND heartbeat_at < ? ORDER BY heartbeat_at, id LIMIT ?
			""".formatted(SUMMARY_COLUMNS);

	/** The WHERE clause must match the partial index's exactly for SQLite to use it. */
	static final String RETRIES = """
			SELECT type, attempts, count(*) FROM {jobs} INDEXED BY {p}jobs_unfinished_attempts_idx
			WHERE status IN ('pending', 'running', 'failed')
			GROUP BY type, attempts
			""";

	static final String ERRORS = """
			SELECT error_code, type, status, count(*) FROM {jobs} INDEXED BY {p}jobs_error_code_idx
			WHERE error_code IS NOT NULL AND status IN ('pending', 'running', 'failed')
			GROUP BY error_code, type, status
			""";

	static final String WORKERS = """
			SELECT worker_id, host, pid, types, concurrency, started_at, heartbeat_at FROM {workers}
			""";

	private static final String JOB = """
			SELECT %s, lease_until, error_detail, dedup_key, cancel_requested, trace_parent,
			       length(payload), substr(payload, 1, ?), length(result), substr(result, 1, ?)
			FROM {jobs} WHERE id = ?
			""".formatted(SUMMARY_COLUMNS);

	private static final String ATTEMPTS = """
			SELECT run, attempt, worker_id, started_at, finished_at, outcome, error_code, error_detail
			FROM {attempts} WHERE job_id = ? ORDER BY run
			""";

	private static final String EVENTS = """
			SELECT at, event, actor, detail FROM (
			    SELECT id, at, event, actor, detail FROM {events} WHERE job_id = ? ORDER BY id DESC LIMIT ?)
			ORDER BY id
			""";

	/** A row that is always written and always rolled back: proves the file takes writes. */
	private static final String WRITE_PROBE = """
			INSERT INTO {workers} (worker_id, host, pid, types, concurrency, started_at, heartbeat_at)
			VALUES ('jobqueue-write-probe', '', 0, '', 0, 0, 0)
			ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at
			""";

	private final SqliteDatabase database;

	private final TableNames tables;

	public SqliteQueueInsights(SqliteDatabase database, TableNames tables) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
	}

	@Override
	public QueueSnapshot snapshot(Instant now, SnapshotSettings settings) {
		return this.database.read("read a snapshot of the queue", (connection) -> {
			// One read transaction: every statement sees the same state of the file (WAL keeps it for us).
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
		long at = now.toEpochMilli();
		Map<String, Map<JobStatus, Long>> counts = counts(connection);
		long claimable = singleLong(connection, CLAIMABLE_COUNT, at);
		JobSummary oldestClaimable = firstSummary(connection, OLDEST_CLAIMABLE, at);
		List<JobSummary> oldestRunning = summaries(connection, OLDEST_RUNNING, settings.jobsListed());
		StuckJobs stuck = stuck(connection, now.minus(settings.stuckAfter()).toEpochMilli(), settings.jobsListed());
		Map<String, Map<Integer, Long>> retriesByType = retriesByType(connection);
		Map<Integer, Long> retries = new TreeMap<>();
		retriesByType.values().forEach((byAttempts) -> byAttempts.forEach((attempts, count) -> retries.merge(attempts, count, Long::sum)));
		ErrorSummary errors = errors(connection, settings.topErrors());
		List<WorkerState> workers = workers(connection, now.minus(settings.workerDeadAfter()));
		return new QueueSnapshot(now, counts, claimable, oldestClaimable, oldestRunning, stuck, retries,
				retriesByType, errors, workers, unhandled(counts, workers), storage(connection));
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
	public Optional<JobSummary> oldestClaimable(Instant now) {
		return Optional.ofNullable(this.database.read("find the oldest claimable job",
				(connection) -> firstSummary(connection, OLDEST_CLAIMABLE, now.toEpochMilli())));
	}

	@Override
	public StuckJobs stuck(Instant heartbeatBefore, int limit) {
		return this.database.read("find stuck jobs",
				(connection) -> stuck(connection, heartbeatBefore.toEpochMilli(), limit));
	}

	@Override
	public Optional<JobDetail> job(long id, int payloadPreviewChars) {
		int preview = Math.max(0, payloadPreviewChars);
		return this.database.read("read job " + id, (connection) -> {
			JobDetail detail;
			try (PreparedStatement select = connection.prepareStatement(sql(JOB))) {
				select.setInt(1, Math.max(1, preview));
				select.setInt(2, Math.max(1, preview));
				select.setLong(3, id);
				try (ResultSet rows = select.executeQuery()) {
					if (!rows.next()) {
						return Optional.empty();
					}
					JobSummary job = summary(rows);
					Text payload = text(rows, 19, preview);
					Text result = (rows.getObject(21) != null) ? text(rows, 21, preview) : null;
					detail = new JobDetail(job, SqliteJobStore.instant(rows, "lease_until"), rows.getString(15),
							rows.getString(16), rows.getInt(17) == 1, rows.getString(18), payload, result,
							attempts(connection, id), events(connection, id));
				}
			}
			return Optional.of(detail);
		});
	}

	@Override
	public JobPage jobs(JobQuery query) {
		List<Object> arguments = new ArrayList<>();
		String sql = jobsStatement(query, arguments);
		List<JobSummary> jobs = this.database.read("list jobs",
				(connection) -> summaries(connection, sql, arguments.toArray()));
		if (jobs.size() <= query.limit()) {
			return new JobPage(jobs, null);
		}
		List<JobSummary> page = jobs.subList(0, query.limit());
		return new JobPage(List.copyOf(page), page.get(page.size() - 1).id());
	}

	private static String jobsStatement(JobQuery query, List<Object> arguments) {
		List<String> conditions = new ArrayList<>();
		String index = null;
		if (query.status() != null) {
			conditions.add("status = ?");
			arguments.add(query.status().dbValue());
			// Both indexes keep the rows of one key in id order, so newest first needs no sort.
			index = (query.type() != null) ? "jobs_status_type_idx" : "jobs_status_idx";
		}
		if (query.type() != null) {
			conditions.add("type = ?");
			arguments.add(query.type());
		}
		if (query.errorCode() != null) {
			conditions.add("error_code = ?");
			arguments.add(query.errorCode());
			index = (index != null) ? index : "jobs_error_code_idx";
		}
		if (query.before() != null) {
			conditions.add("id < ?");
			arguments.add(query.before());
		}
		arguments.add(query.limit() + 1);
		// Without a status or error code, the primary key read backwards finds the newest matches first.
		return "SELECT " + SUMMARY_COLUMNS + " FROM {jobs}" + ((index != null) ? " INDEXED BY {p}" + index : "")
				+ (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions))
				+ " ORDER BY id DESC LIMIT ?";
	}

	@Override
	public void checkReadWrite() {
		try (Connection connection = this.database.dataSource().getConnection()) {
			try (Statement statement = connection.createStatement()) {
				statement.execute("BEGIN IMMEDIATE");
				try {
					statement.executeUpdate(sql(WRITE_PROBE));
				}
				finally {
					statement.execute("ROLLBACK");
				}
			}
		}
		catch (SQLException ex) {
			if (SqliteErrors.isBusy(ex)) {
				// Another process has held the write lock beyond busy_timeout: the file works, it is just busy.
				return;
			}
			throw SqliteErrors.translate(ex, "check that the queue database can be read and written",
					this.database.location());
		}
	}

	/** The query plans of the snapshot's statements, for tests that check every one uses an index. */
	Map<String, List<String>> explainSnapshot(Instant now) {
		long at = now.toEpochMilli();
		Map<String, Object[]> statements = new LinkedHashMap<>();
		statements.put("COUNTS", new Object[0]);
		statements.put("CLAIMABLE_COUNT", new Object[] { at });
		statements.put("OLDEST_CLAIMABLE", new Object[] { at });
		statements.put("OLDEST_RUNNING", new Object[] { 10 });
		statements.put("STUCK_COUNT", new Object[] { at });
		statements.put("STUCK", new Object[] { at, 10 });
		statements.put("RETRIES", new Object[0]);
		statements.put("ERRORS", new Object[0]);
		Map<String, String> texts = Map.of("COUNTS", COUNTS, "CLAIMABLE_COUNT", CLAIMABLE_COUNT, "OLDEST_CLAIMABLE",
				OLDEST_CLAIMABLE, "OLDEST_RUNNING", OLDEST_RUNNING, "STUCK_COUNT", STUCK_COUNT, "STUCK", STUCK,
				"RETRIES", RETRIES, "ERRORS", ERRORS);
		return this.database.read("explain the snapshot queries", (connection) -> {
			Map<String, List<String>> plans = new LinkedHashMap<>();
			for (Map.Entry<String, Object[]> statement : statements.entrySet()) {
				plans.put(statement.getKey(),
						plan(connection, "EXPLAIN QUERY PLAN " + sql(texts.get(statement.getKey())), statement.getValue()));
			}
			return plans;
		});
	}

	/** The query plan of a job list, for tests. */
	List<String> explainJobs(JobQuery query) {
		List<Object> arguments = new ArrayList<>();
		String sql = "EXPLAIN QUERY PLAN " + sql(jobsStatement(query, arguments));
		return this.database.read("explain a job list", (connection) -> plan(connection, sql, arguments.toArray()));
	}

	private List<String> plan(Connection connection, String sql, Object... arguments) throws SQLException {
		List<String> lines = new ArrayList<>();
		try (PreparedStatement explain = connection.prepareStatement(sql)) {
			bind(explain, arguments);
			try (ResultSet rows = explain.executeQuery()) {
				while (rows.next()) {
					lines.add(rows.getString("detail"));
				}
			}
		}
		return lines;
	}

	private Map<String, Map<JobStatus, Long>> counts(Connection connection) throws SQLException {
		Map<String, Map<JobStatus, Long>> counts = new TreeMap<>();
		try (PreparedStatement select = connection.prepareStatement(sql(COUNTS));
				ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				counts.computeIfAbsent(rows.getString(1), (type) -> new EnumMap<>(JobStatus.class))
					.put(JobStatus.fromDbValue(rows.getString(2)), rows.getLong(3));
			}
		}
		return counts;
	}

	private StuckJobs stuck(Connection connection, long heartbeatBefore, int limit) throws SQLException {
		long count = singleLong(connection, STUCK_COUNT, heartbeatBefore);
		List<JobSummary> oldest = (count > 0) ? summaries(connection, STUCK, heartbeatBefore, limit) : List.of();
		return new StuckJobs(count, oldest);
	}

	private Map<String, Map<Integer, Long>> retriesByType(Connection connection) throws SQLException {
		Map<String, Map<Integer, Long>> retries = new TreeMap<>();
		try (PreparedStatement select = connection.prepareStatement(sql(RETRIES));
				ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				retries.computeIfAbsent(rows.getString(1), (type) -> new TreeMap<>()).put(rows.getInt(2), rows.getLong(3));
			}
		}
		return retries;
	}

	private ErrorSummary errors(Connection connection, int top) throws SQLException {
		Map<String, long[]> totals = new HashMap<>();
		Map<String, Map<String, Long>> byType = new HashMap<>();
		try (PreparedStatement select = connection.prepareStatement(sql(ERRORS));
				ResultSet rows = select.executeQuery()) {
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
		try (PreparedStatement select = connection.prepareStatement(sql(WORKERS));
				ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				String types = rows.getString(4);
				Set<String> typeSet = types.isEmpty() ? Set.of()
						: Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(types.split(","))));
				Instant heartbeat = Instant.ofEpochMilli(rows.getLong(7));
				workers.add(new WorkerState(rows.getString(1), rows.getString(2), rows.getLong(3), typeSet,
						rows.getInt(5), Instant.ofEpochMilli(rows.getLong(6)), heartbeat, !heartbeat.isBefore(deadBefore)));
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
		long pageSize = pragma(connection, "page_size");
		long pageCount = pragma(connection, "page_count");
		long freePages = pragma(connection, "freelist_count");
		String file = null;
		try (Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("PRAGMA database_list")) {
			while (rows.next()) {
				if ("main".equals(rows.getString("name"))) {
					file = rows.getString("file");
				}
			}
		}
		long databaseBytes = pageSize * pageCount;
		long walBytes = 0;
		if (file != null && !file.isEmpty()) {
			databaseBytes = sizeOf(Path.of(file), databaseBytes);
			walBytes = sizeOf(Path.of(file + "-wal"), 0);
		}
		return new StorageState((file != null && !file.isEmpty()) ? file : this.database.location(), databaseBytes,
				walBytes, pageSize, pageCount, freePages, this.database.busyRetries());
	}

	private static long sizeOf(Path file, long fallback) {
		try {
			return Files.exists(file) ? Files.size(file) : fallback;
		}
		catch (IOException ex) {
			return fallback;
		}
	}

	private static long pragma(Connection connection, String name) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("PRAGMA " + name)) {
			return rows.next() ? rows.getLong(1) : 0;
		}
	}

	private List<Attempt> attempts(Connection connection, long id) throws SQLException {
		List<Attempt> attempts = new ArrayList<>();
		try (PreparedStatement select = connection.prepareStatement(sql(ATTEMPTS))) {
			select.setLong(1, id);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					attempts.add(new Attempt(rows.getInt(1), rows.getInt(2), rows.getString(3),
							SqliteJobStore.instant(rows, "started_at"), SqliteJobStore.instant(rows, "finished_at"),
							rows.getString(6), rows.getString(7), rows.getString(8)));
				}
			}
		}
		return attempts;
	}

	private List<Event> events(Connection connection, long id) throws SQLException {
		List<Event> events = new ArrayList<>();
		try (PreparedStatement select = connection.prepareStatement(sql(EVENTS))) {
			select.setLong(1, id);
			select.setInt(2, JobDetail.MAX_EVENTS);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					events.add(new Event(Instant.ofEpochMilli(rows.getLong(1)), rows.getString(2), rows.getString(3),
							rows.getString(4)));
				}
			}
		}
		return events;
	}

	private static Text text(ResultSet rows, int lengthColumn, int preview) throws SQLException {
		long length = rows.getLong(lengthColumn);
		if (preview == 0) {
			return new Text(length, null, length > 0);
		}
		String start = rows.getString(lengthColumn + 1);
		return new Text(length, start, start != null && start.length() < length);
	}

	private JobSummary firstSummary(Connection connection, String sql, Object... arguments) throws SQLException {
		List<JobSummary> summaries = summaries(connection, sql, arguments);
		return summaries.isEmpty() ? null : summaries.get(0);
	}

	private List<JobSummary> summaries(Connection connection, String sql, Object... arguments) throws SQLException {
		List<JobSummary> summaries = new ArrayList<>();
		try (PreparedStatement select = connection.prepareStatement(sql(sql))) {
			bind(select, arguments);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					summaries.add(summary(rows));
				}
			}
		}
		return summaries;
	}

	private static JobSummary summary(ResultSet rows) throws SQLException {
		return new JobSummary(rows.getLong("id"), rows.getString("type"),
				JobStatus.fromDbValue(rows.getString("status")), rows.getInt("priority"), rows.getInt("attempts"),
				rows.getInt("max_attempts"), SqliteJobStore.instant(rows, "created_at"),
				SqliteJobStore.instant(rows, "run_at"), SqliteJobStore.instant(rows, "started_at"),
				SqliteJobStore.instant(rows, "finished_at"), rows.getString("worker_id"),
				SqliteJobStore.instant(rows, "heartbeat_at"), rows.getString("error_code"));
	}

	private long singleLong(Connection connection, String sql, Object... arguments) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement(sql(sql))) {
			bind(select, arguments);
			try (ResultSet rows = select.executeQuery()) {
				return rows.next() ? rows.getLong(1) : 0;
			}
		}
	}

	private static void bind(PreparedStatement statement, Object... arguments) throws SQLException {
		for (int i = 0; i < arguments.length; i++) {
			statement.setObject(i + 1, arguments[i]);
		}
	}

	private String sql(String template) {
		return this.tables.expand(template);
	}

}
