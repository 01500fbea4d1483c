package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.JobProgress;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.QueueSnapshot;
import dev.jobqueue.core.store.QueueSnapshot.ErrorCount;
import dev.jobqueue.core.store.QueueSnapshot.ErrorSummary;
import dev.jobqueue.core.store.QueueSnapshot.StorageState;
import dev.jobqueue.core.store.QueueSnapshot.WorkerState;
import dev.jobqueue.core.store.TraceHeaders;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * {@link QueueInsights} on PostgreSQL. A snapshot is a handful of statements in one
 * repeatable-read, read-only transaction (every statement sees the same state), each
 * answered from an index of {@code V1__create_queue.sql}; only the worker table, one row
 * per process, is read whole. The plans on a table of a million finished jobs are written
 * down in {@code docs/postgresql.md}.
 *
 * <p>
 * Over 400 lines: one statement per question of the snapshot, each with the note on its
 * plan.
 */
public final class PostgresQueueInsights implements QueueInsights {

	private static final String SUMMARY_COLUMNS = """
			id, type, status, priority, attempts, max_attempts, created_at, run_at, started_at, finished_at,
			worker_id, heartbeat_at, error_code""";

	/** An index-only scan of jobs_status_type_idx. */
	static final String COUNTS = """
			SELECT type, status, count(*) FROM {jobs} GROUP BY status, type
			""";

	/**
	 * Due pending jobs that a worker would claim now: a paused type, or one no live
	 * worker handles, is held.
	 */
	private static final String CLAIMABLE = """
			status = 'pending' AND run_at <= :now AND type <> ALL(ARRAY(SELECT type FROM {paused}))
			AND EXISTS (SELECT 1 FROM {workers} w WHERE w.heartbeat_at >= :alive_after AND {jobs}.type = ANY (w.types))""";

	static final String CLAIMABLE_COUNT = """
			SELECT count(*) FROM {jobs} WHERE %s
			""".formatted(CLAIMABLE);

	static final String OLDEST_CLAIMABLE = """
			SELECT %s FROM {jobs} WHERE %s ORDER BY run_at, id LIMIT 1
			""".formatted(SUMMARY_COLUMNS, CLAIMABLE);

	static final String OLDEST_RUNNING = """
			SELECT %s FROM {jobs} WHERE status = 'running' ORDER BY started_at, id LIMIT :limit
			""".formatted(SUMMARY_COLUMNS);

	static final String STUCK_COUNT = """
			SELECT count(*) FROM {jobs} WHERE status = 'running' AND heartbeat_at < :heartbeat_before
			""";

	static final String STUCK = """
			SELECT %s FROM {jobs} WHERE status = 'running' AND heartbeat_at < :heartbeat_before
			ORDER BY heartbeat_at, id LIMIT :limit
			""".formatted(SUMMARY_COLUMNS);

	static final String RETRIES = """
			SELECT type, attempts, count(*) FROM {jobs}
			WHERE status IN ('pending', 'running', 'failed')
			GROUP BY type, attempts
			""";

	static final String ERRORS = """
			SELECT error_code, type, status, count(*) FROM {jobs}
			WHERE error_code IS NOT NULL AND status IN ('pending', 'running', 'failed')
			GROUP BY error_code, type, status
			""";

	private static final String WORKERS = """
			SELECT worker_id, host, pid, types, concurrency, started_at, heartbeat_at FROM {workers}
			""";

	private static final String JOB = """
			SELECT %s, lease_until, error_detail, dedup_key, cancel_requested, trace_parent,
			       length(payload), substr(payload, 1, :preview), length(result), substr(result, 1, :preview),
			       progress_done, progress_total, progress_message, progress_at,
			       chain_id, chain_index, waiting_for, dependency_policy
			FROM {jobs} WHERE id = :job_id
			""".formatted(SUMMARY_COLUMNS);

	/** The latest progress of the given jobs, by primary key. */
	static final String PROGRESS = """
			SELECT id, progress_done, progress_total, progress_message, progress_at FROM {jobs}
			WHERE id = ANY(:ids) AND progress_at IS NOT NULL
			""";

	/** A chain's first steps, from jobs_chain_idx. */
	static final String CHAIN_STEPS = """
			SELECT %s FROM {jobs} WHERE chain_id = :chain_id ORDER BY chain_index, id LIMIT :limit
			""".formatted(SUMMARY_COLUMNS);

	static final String CHAIN_LENGTH = """
			SELECT count(*) FROM {jobs} WHERE chain_id = :chain_id
			""";

	/** What a job waits for, from job_dependencies_job_idx. */
	static final String WAITS_FOR = """
			SELECT %s FROM {jobs} WHERE id = ANY(ARRAY(
			    SELECT depends_on FROM {dependencies} WHERE job_id = :job_id ORDER BY depends_on LIMIT :limit))
			ORDER BY id
			""".formatted(SUMMARY_COLUMNS);

	static final String WAITS_FOR_COUNT = """
			SELECT count(*) FROM {dependencies} WHERE job_id = :job_id
			""";

	/** What waits for a job, from the dependency table's primary key. */
	static final String WAITED_BY = """
			SELECT %s FROM {jobs} WHERE id = ANY(ARRAY(
			    SELECT job_id FROM {dependencies} WHERE depends_on = :job_id ORDER BY job_id LIMIT :limit))
			ORDER BY id
			""".formatted(SUMMARY_COLUMNS);

	static final String WAITED_BY_COUNT = """
			SELECT count(*) FROM {dependencies} WHERE depends_on = :job_id
			""";

	private static final String ATTEMPTS = """
			SELECT run, attempt, worker_id, started_at, finished_at, outcome, error_code, error_detail, error_trace
			FROM {attempts} WHERE job_id = :job_id ORDER BY run
			""";

	private static final String EVENTS = """
			SELECT at, event, actor, detail FROM (
			    SELECT id, at, event, actor, detail FROM {events} WHERE job_id = :job_id ORDER BY id DESC LIMIT :limit) latest
			ORDER BY id
			""";

	/**
	 * The queue's tables: their sizes and rows, live and dead (what autovacuum has yet to
	 * reclaim).
	 */
	private static final String TABLE_STATS = """
			SELECT c.relname, pg_table_size(c.oid), pg_indexes_size(c.oid), coalesce(s.n_live_tup, 0),
				coalesce(s.n_dead_tup, 0)
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
			WHERE n.nspname = :schema AND c.relkind = 'r' AND c.relname = ANY(:tables::text[])
			ORDER BY c.relname
			""";

	/** The database's sessions by state: the queue's and everybody else's. */
	private static final String CONNECTIONS = """
			SELECT coalesce(state, 'other'), count(*) FROM pg_stat_activity
			WHERE datname = current_database() GROUP BY 1 ORDER BY 1
			""";

	/** Succeeded runs per slot, from job_attempts_outcome_idx (V3) alone. */
	static final String OUTCOMES_SUCCEEDED = """
			SELECT floor(extract(epoch FROM finished_at) * 1000 / :slot)::bigint, count(*) FROM {attempts}
			WHERE outcome = 'SUCCEEDED' AND finished_at >= :from AND finished_at < :to
			GROUP BY 1
			""";

	/**
	 * Failed runs per slot, each job looked up to tell a failure for good from a retried
	 * one.
	 */
	static final String OUTCOMES_FAILED = """
			SELECT floor(extract(epoch FROM a.finished_at) * 1000 / :slot)::bigint,
			       coalesce(j.status = 'failed' AND j.runs = a.run, false), count(*)
			FROM {attempts} a LEFT JOIN {jobs} j ON j.id = a.job_id
			WHERE a.outcome IN ('FAILED', 'LEASE_EXPIRED') AND a.finished_at >= :from AND a.finished_at < :to
			GROUP BY 1, 2
			""";

	/**
	 * Any healthy database answers at once: a read never waits for another transaction's
	 * row locks.
	 */
	private static final String READ_PROBE = """
			SELECT count(*) FROM {jobs} WHERE id = -1
			""";

	private final PostgresDatabase database;

	private final Tables tables;

	private final PostgresRetentionStore retention;

	public PostgresQueueInsights(PostgresDatabase database, Tables tables) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.retention = new PostgresRetentionStore(database, tables);
	}

	@Override
	public QueueSnapshot snapshot(Instant now, SnapshotSettings settings) {
		QueueSnapshot snapshot = this.database.readConsistent("read a snapshot of the queue",
				(connection) -> snapshot(connection, now, settings));
		return snapshot;
	}

	private QueueSnapshot snapshot(Connection connection, Instant now, SnapshotSettings settings) throws SQLException {
		Map<String, Map<JobStatus, Long>> counts = counts(connection);
		Instant aliveAfter = now.minus(settings.workerDeadAfter());
		long claimable = singleLong(connection,
				sql(CLAIMABLE_COUNT).prepare(connection).bind("now", now).bind("alive_after", aliveAfter));
		JobSummary oldestClaimable = firstSummary(
				sql(OLDEST_CLAIMABLE).prepare(connection).bind("now", now).bind("alive_after", aliveAfter));
		List<JobSummary> oldestRunning = summaries(
				sql(OLDEST_RUNNING).prepare(connection).bind("limit", settings.jobsListed()));
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

	@Override
	public Optional<JobSummary> oldestClaimable(Instant now, Instant workersAliveAfter) {
		return Optional.ofNullable(this.database.read("find the oldest claimable job", (connection) -> firstSummary(
				sql(OLDEST_CLAIMABLE).prepare(connection).bind("now", now).bind("alive_after", workersAliveAfter))));
	}

	@Override
	public StuckJobs stuck(Instant heartbeatBefore, int limit) {
		return this.database.read("find stuck jobs", (connection) -> stuck(connection, heartbeatBefore, limit));
	}

	@Override
	public Optional<JobDetail> job(long id, int payloadPreviewChars) {
		int preview = Math.max(0, payloadPreviewChars);
		return this.database.readConsistent("read job " + id, (connection) -> {
			try (SqlStatement select = sql(JOB).prepare(connection)) {
				select.bind("preview", Math.max(1, preview)).bind("job_id", id);
				try (ResultSet rows = select.executeQuery()) {
					if (!rows.next()) {
						return Optional.empty();
					}
					JobSummary job = summary(rows);
					Text payload = text(rows, 19, preview);
					Text result = (rows.getObject(21) != null) ? text(rows, 21, preview) : null;
					Long chainId = rows.getObject("chain_id", Long.class);
					Integer chainIndex = rows.getObject("chain_index", Integer.class);
					int waitingFor = rows.getInt("waiting_for");
					String policy = rows.getString("dependency_policy");
					JobDetail detail = new JobDetail(job, PostgresDialect.INSTANCE.instant(rows, "lease_until"),
							rows.getString(15), rows.getString(16), rows.getBoolean(17),
							TraceHeaders.traceParent(rows.getString(18)), payload, result, attempts(connection, id),
							events(connection, id), progress(rows, 23));
					return Optional
						.of(detail.withLinks(links(connection, id, chainId, chainIndex, waitingFor, policy)));
				}
			}
		});
	}

	@Override
	public Map<Long, JobProgress> progress(Collection<Long> jobIds) {
		if (jobIds.isEmpty()) {
			return Map.of();
		}
		return this.database.read("read the progress of running jobs", (connection) -> {
			Map<Long, JobProgress> found = new HashMap<>();
			try (SqlStatement select = sql(PROGRESS).prepare(connection)) {
				select.bindArray("ids", "int8", jobIds.toArray(new Long[0]));
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						found.put(rows.getLong(1), progress(rows, 2));
					}
				}
			}
			return found;
		});
	}

	/** The four progress columns from {@code firstColumn} on, or {@code null}. */
	private static JobProgress progress(ResultSet rows, int firstColumn) throws SQLException {
		Instant at = PostgresDialect.INSTANCE.instant(rows, firstColumn + 3);
		if (at == null) {
			return null;
		}
		return new JobProgress(rows.getLong(firstColumn), rows.getLong(firstColumn + 1),
				rows.getString(firstColumn + 2), at);
	}

	@Override
	public JobPage jobs(JobQuery query) {
		List<JobSummary> jobs = this.database.read("list jobs", (connection) -> {
			SqlStatement select = sql(jobsStatement(query)).prepare(connection);
			if (query.status() != null) {
				select.bind("status", query.status().dbValue());
			}
			if (query.type() != null) {
				select.bind("type", query.type());
			}
			if (query.errorCode() != null) {
				select.bind("error_code", query.errorCode());
			}
			if (query.before() != null) {
				select.bind("before", query.before());
			}
			return summaries(select.bind("limit", query.limit() + 1));
		});
		if (jobs.size() <= query.limit()) {
			return new JobPage(jobs, null);
		}
		List<JobSummary> page = jobs.subList(0, query.limit());
		return new JobPage(List.copyOf(page), page.get(page.size() - 1).id());
	}

	@Override
	public List<Outcomes> outcomes(Instant from, Instant to, Duration slot) {
		long slotMillis = slot.toMillis();
		if (slotMillis < 1000) {
			throw new IllegalArgumentException("A slot must be at least a second long, not " + slot);
		}
		long first = Math.floorDiv(from.toEpochMilli(), slotMillis);
		long end = Math.floorDiv(to.toEpochMilli() - 1, slotMillis) + 1;
		if (end <= first) {
			return List.of();
		}
		long[][] counts = new long[(int) Math.min(end - first, 100_000)][3];
		Instant start = Instant.ofEpochMilli(first * slotMillis);
		Instant stop = Instant.ofEpochMilli(end * slotMillis);
		this.database.read("count run outcomes over time", (connection) -> {
			try (SqlStatement select = sql(OUTCOMES_SUCCEEDED).prepare(connection)
				.bind("slot", slotMillis)
				.bind("from", start)
				.bind("to", stop); ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					addOutcome(counts, rows.getLong(1) - first, 0, rows.getLong(2));
				}
			}
			try (SqlStatement select = sql(OUTCOMES_FAILED).prepare(connection)
				.bind("slot", slotMillis)
				.bind("from", start)
				.bind("to", stop); ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					addOutcome(counts, rows.getLong(1) - first, rows.getBoolean(2) ? 1 : 2, rows.getLong(3));
				}
			}
			return null;
		});
		List<Outcomes> outcomes = new ArrayList<>(counts.length);
		for (int i = 0; i < counts.length; i++) {
			outcomes.add(new Outcomes(Instant.ofEpochMilli((first + i) * slotMillis), counts[i][0], counts[i][1],
					counts[i][2]));
		}
		return outcomes;
	}

	private static void addOutcome(long[][] counts, long index, int column, long count) {
		if (index >= 0 && index < counts.length) {
			counts[(int) index][column] += count;
		}
	}

	/**
	 * Newest first: by status (and type) from jobs_status_type_idx, else the primary key
	 * read backwards.
	 */
	static String jobsStatement(JobQuery query) {
		List<String> conditions = new ArrayList<>();
		if (query.status() != null) {
			conditions.add("status = :status");
		}
		if (query.type() != null) {
			conditions.add("type = :type");
		}
		if (query.errorCode() != null) {
			conditions.add("error_code = :error_code");
		}
		if (query.before() != null) {
			conditions.add("id < :before");
		}
		return "SELECT " + SUMMARY_COLUMNS + " FROM {jobs}"
				+ (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions))
				+ " ORDER BY id DESC LIMIT :limit";
	}

	@Override
	public void checkAvailable() {
		boolean readOnly;
		try (Connection connection = this.database.dataSource().getConnection();
				Statement statement = connection.createStatement()) {
			try (ResultSet rows = statement.executeQuery(sql(READ_PROBE).text())) {
				rows.next();
			}
			// On for a hot standby and for default_transaction_read_only: found without
			// writing or locking.
			try (ResultSet rows = statement.executeQuery("SHOW transaction_read_only")) {
				readOnly = rows.next() && "on".equalsIgnoreCase(rows.getString(1));
			}
		}
		catch (SQLException ex) {
			throw PostgresErrors.translate(ex, "check that the queue database can be read", this.database.location());
		}
		if (readOnly) {
			throw new JobQueueException("The queue database " + this.database.location() + " cannot be written: the "
					+ "database is read-only (a standby, or default_transaction_read_only is on). Point the queue at the "
					+ "primary, or turn default_transaction_read_only off for its user.");
		}
	}

	private Map<String, Map<JobStatus, Long>> counts(Connection connection) throws SQLException {
		Map<String, Map<JobStatus, Long>> counts = new TreeMap<>();
		try (SqlStatement select = sql(COUNTS).prepare(connection); ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				counts.computeIfAbsent(rows.getString(1), (type) -> new EnumMap<>(JobStatus.class))
					.put(JobStatus.fromDbValue(rows.getString(2)), rows.getLong(3));
			}
		}
		return counts;
	}

	private StuckJobs stuck(Connection connection, Instant heartbeatBefore, int limit) throws SQLException {
		long count = singleLong(connection,
				sql(STUCK_COUNT).prepare(connection).bind("heartbeat_before", heartbeatBefore));
		List<JobSummary> oldest = (count > 0)
				? summaries(
						sql(STUCK).prepare(connection).bind("heartbeat_before", heartbeatBefore).bind("limit", limit))
				: List.of();
		return new StuckJobs(count, oldest);
	}

	private Map<String, Map<Integer, Long>> retriesByType(Connection connection) throws SQLException {
		Map<String, Map<Integer, Long>> retries = new TreeMap<>();
		try (SqlStatement select = sql(RETRIES).prepare(connection); ResultSet rows = select.executeQuery()) {
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
		try (SqlStatement select = sql(ERRORS).prepare(connection); ResultSet rows = select.executeQuery()) {
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
		try (SqlStatement select = sql(WORKERS).prepare(connection); ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				String[] types = (String[]) rows.getArray(4).getArray();
				Instant heartbeat = PostgresDialect.INSTANCE.instant(rows, 7);
				workers.add(new WorkerState(rows.getString(1), rows.getString(2), rows.getLong(3),
						Set.copyOf(new LinkedHashSet<>(Arrays.asList(types))), rows.getInt(5),
						PostgresDialect.INSTANCE.instant(rows, 6), heartbeat, !heartbeat.isBefore(deadBefore)));
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

	/**
	 * The queue's tables and indexes in the shape the endpoint shows for any store: their
	 * total size as the database size, in 8 kB pages; no log or free list of the queue's
	 * own. Per table sizes, dead rows and the database's connections go to the details.
	 */
	private StorageState storage(Connection connection) throws SQLException {
		Map<String, Object> tables = new LinkedHashMap<>();
		long bytes = 0;
		try (SqlStatement select = sql(TABLE_STATS).prepare(connection)) {
			select.bind("schema", this.tables.schema())
				.bindTexts("tables",
						PostgresRetentionStore.TABLES.stream().map((table) -> this.tables.prefix() + table).toList());
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					bytes += rows.getLong(2) + rows.getLong(3);
					tables.put(rows.getString(1), Map.of("bytes", rows.getLong(2), "indexBytes", rows.getLong(3),
							"liveRows", rows.getLong(4), "deadRows", rows.getLong(5)));
				}
			}
		}
		Map<String, Object> connections = new LinkedHashMap<>();
		try (PreparedStatement select = connection.prepareStatement(CONNECTIONS);
				ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				connections.put(rows.getString(1), rows.getLong(2));
			}
		}
		return new StorageState("postgresql", this.database.location(), bytes, 0, 8192, bytes / 8192, 0,
				this.database.retries(),
				Map.of("schema", this.tables.schema(), "tables", tables, "connections", connections));
	}

	/**
	 * A job's chain and dependencies: lists of at most {@link JobLinks#MAX_LISTED} jobs,
	 * exact counts.
	 */
	private JobLinks links(Connection connection, long id, Long chainId, Integer chainIndex, int waitingFor,
			String policy) throws SQLException {
		int limit = JobLinks.MAX_LISTED;
		List<JobSummary> steps = List.of();
		long chainLength = 0;
		if (chainId != null) {
			steps = summaries(sql(CHAIN_STEPS).prepare(connection).bind("chain_id", chainId).bind("limit", limit));
			chainLength = singleLong(connection, sql(CHAIN_LENGTH).prepare(connection).bind("chain_id", chainId));
		}
		long waitsForCount = singleLong(connection, sql(WAITS_FOR_COUNT).prepare(connection).bind("job_id", id));
		List<JobSummary> waitsFor = (waitsForCount > 0)
				? summaries(sql(WAITS_FOR).prepare(connection).bind("job_id", id).bind("limit", limit)) : List.of();
		long waitedByCount = singleLong(connection, sql(WAITED_BY_COUNT).prepare(connection).bind("job_id", id));
		List<JobSummary> waitedBy = (waitedByCount > 0)
				? summaries(sql(WAITED_BY).prepare(connection).bind("job_id", id).bind("limit", limit)) : List.of();
		if (chainId == null && waitsForCount == 0 && waitedByCount == 0 && policy == null) {
			return JobLinks.NONE;
		}
		return new JobLinks(chainId, chainIndex, steps, chainLength, waitingFor,
				(policy != null) ? DependencyPolicy.fromDbValue(policy) : null, waitsFor, waitsForCount, waitedBy,
				waitedByCount);
	}

	private List<Attempt> attempts(Connection connection, long id) throws SQLException {
		List<Attempt> attempts = new ArrayList<>();
		try (SqlStatement select = sql(ATTEMPTS).prepare(connection)) {
			select.bind("job_id", id);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					attempts.add(new Attempt(rows.getInt(1), rows.getInt(2), rows.getString(3),
							PostgresDialect.INSTANCE.instant(rows, "started_at"),
							PostgresDialect.INSTANCE.instant(rows, "finished_at"), rows.getString(6), rows.getString(7),
							rows.getString(8), rows.getString(9)));
				}
			}
		}
		return attempts;
	}

	private List<Event> events(Connection connection, long id) throws SQLException {
		List<Event> events = new ArrayList<>();
		try (SqlStatement select = sql(EVENTS).prepare(connection)) {
			select.bind("job_id", id).bind("limit", JobDetail.MAX_EVENTS);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					events.add(new Event(PostgresDialect.INSTANCE.instant(rows, 1), rows.getString(2),
							rows.getString(3), rows.getString(4)));
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

	private static JobSummary firstSummary(SqlStatement select) throws SQLException {
		List<JobSummary> summaries = summaries(select);
		return summaries.isEmpty() ? null : summaries.get(0);
	}

	private static List<JobSummary> summaries(SqlStatement select) throws SQLException {
		List<JobSummary> summaries = new ArrayList<>();
		try (select; ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				summaries.add(summary(rows));
			}
		}
		return summaries;
	}

	private static JobSummary summary(ResultSet rows) throws SQLException {
		return new JobSummary(rows.getLong("id"), rows.getString("type"),
				JobStatus.fromDbValue(rows.getString("status")), rows.getInt("priority"), rows.getInt("attempts"),
				rows.getInt("max_attempts"), PostgresDialect.INSTANCE.instant(rows, "created_at"),
				PostgresDialect.INSTANCE.instant(rows, "run_at"), PostgresDialect.INSTANCE.instant(rows, "started_at"),
				PostgresDialect.INSTANCE.instant(rows, "finished_at"), rows.getString("worker_id"),
				PostgresDialect.INSTANCE.instant(rows, "heartbeat_at"), rows.getString("error_code"));
	}

	private static long singleLong(Connection connection, SqlStatement select) throws SQLException {
		try (select; ResultSet rows = select.executeQuery()) {
			return rows.next() ? rows.getLong(1) : 0;
		}
	}

	private Sql sql(String template) {
		return this.tables.sql(template);
	}

}
