package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
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
import dev.jobqueue.core.store.QueueSnapshot.WorkerState;

/**
 * {@link QueueInsights} on any JDBC database. A snapshot is a handful of statements that
 * all see the same state ({@link JdbcDatabase#readConsistent}), each answered from an
 * index; only the worker table, one row per process, is read whole. The statements are
 * {@link InsightStatements}; job lists and single jobs are {@link JobDetails}; what the
 * storage is made of is the store's {@link StorageFacts}.
 */
public class JdbcQueueInsights implements QueueInsights {

	private final JdbcDatabase database;

	private final Tables tables;

	private final Dialect dialect;

	private final InsightStatements statements;

	private final JobDetails details;

	private final StorageFacts storage;

	private final JobSearches searches;

	private final OutcomeMinutes outcomeMinutes;

	private final FinishedCounts finishedCounts;

	public JdbcQueueInsights(JdbcDatabase database, Tables tables, StorageFacts storage) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.storage = Objects.requireNonNull(storage, "'storage' must not be null");
		this.dialect = tables.dialect();
		this.statements = new InsightStatements(this.dialect);
		this.details = new JobDetails(tables, this.statements);
		this.searches = new JobSearches(tables, this.details);
		this.outcomeMinutes = new OutcomeMinutes(tables);
		this.finishedCounts = new FinishedCounts(tables);
	}

	/** The outcome rollup that {@link #outcomes} reads, for tests of its plan. */
	public final OutcomeMinutes outcomeMinutes() {
		return this.outcomeMinutes;
	}

	/** The statements, for tests of their plans. */
	public final InsightStatements statements() {
		return this.statements;
	}

	protected final JdbcDatabase database() {
		return this.database;
	}

	protected final Tables tables() {
		return this.tables;
	}

	@Override
	public QueueSnapshot snapshot(Instant now, SnapshotSettings settings) {
		return this.database.readConsistent("read a snapshot of the queue",
				(connection) -> snapshot(connection, now, settings));
	}

	private QueueSnapshot snapshot(Connection connection, Instant now, SnapshotSettings settings) throws SQLException {
		Map<String, Map<JobStatus, Long>> counts = counts(connection);
		Instant aliveAfter = now.minus(settings.workerDeadAfter());
		long claimable;
		try (SqlStatement count = sql(this.statements.claimableCount).prepare(connection)) {
			claimable = count.bind("now", now).bind("alive_after", aliveAfter).queryLong();
		}
		JobSummary oldestClaimable = oldestClaimable(connection, now, aliveAfter);
		List<JobSummary> oldestRunning;
		try (SqlStatement select = sql(this.statements.oldestRunning).prepare(connection)) {
			oldestRunning = JobColumns.summaries(select.bind("limit", settings.jobsListed()), this.dialect);
		}
		StuckJobs stuck = stuck(connection, now.minus(settings.stuckAfter()), settings.jobsListed());
		Map<String, Map<Integer, Long>> retriesByType = retriesByType(connection, counts);
		Map<Integer, Long> retries = new TreeMap<>();
		retriesByType.values()
			.forEach(
					(byAttempts) -> byAttempts.forEach((attempts, count) -> retries.merge(attempts, count, Long::sum)));
		ErrorSummary errors = errors(connection, settings.topErrors());
		List<WorkerState> workers = workers(connection, aliveAfter);
		return new QueueSnapshot(now, counts, claimable, oldestClaimable, oldestRunning, stuck, retries, retriesByType,
				errors, workers, unhandled(counts, workers), this.storage.state(connection));
	}

	@Override
	public Optional<JobSummary> oldestClaimable(Instant now, Instant workersAliveAfter) {
		return Optional.ofNullable(this.database.read("find the oldest claimable job",
				(connection) -> oldestClaimable(connection, now, workersAliveAfter)));
	}

	private JobSummary oldestClaimable(Connection connection, Instant now, Instant aliveAfter) throws SQLException {
		try (SqlStatement select = sql(this.statements.oldestClaimable).prepare(connection)) {
			List<JobSummary> oldest = JobColumns.summaries(select.bind("now", now).bind("alive_after", aliveAfter),
					this.dialect);
			return oldest.isEmpty() ? null : oldest.get(0);
		}
	}

	@Override
	public StuckJobs stuck(Instant heartbeatBefore, int limit) {
		return this.database.read("find stuck jobs", (connection) -> stuck(connection, heartbeatBefore, limit));
	}

	private StuckJobs stuck(Connection connection, Instant heartbeatBefore, int limit) throws SQLException {
		long count;
		try (SqlStatement select = sql(this.statements.stuckCount).prepare(connection)) {
			count = select.bind("heartbeat_before", heartbeatBefore).queryLong();
		}
		if (count == 0) {
			return new StuckJobs(0, List.of());
		}
		try (SqlStatement select = sql(this.statements.stuck).prepare(connection)) {
			return new StuckJobs(count, JobColumns
				.summaries(select.bind("heartbeat_before", heartbeatBefore).bind("limit", limit), this.dialect));
		}
	}

	@Override
	public Optional<JobDetail> job(long id, int payloadPreviewChars) {
		return this.database.readConsistent("read job " + id,
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
	public SearchResult search(JobSearch search) {
		return this.database.readConsistent("search jobs", (connection) -> this.searches.search(connection, search));
	}

	/**
	 * The sums of the outcome rollup ({@link OutcomeMinutes}), one primary-key range of a
	 * row per minute and writer, added up per slot.
	 */
	@Override
	public List<Outcomes> outcomes(Instant from, Instant to, Duration slot) {
		long slotMillis = slot.toMillis();
		if (slotMillis <= 0 || slotMillis % OutcomeMinutes.MINUTE_MILLIS != 0) {
			throw new IllegalArgumentException(
					"A slot must be a whole number of minutes (runs are counted per " + "minute), not " + slot);
		}
		long slotMinutes = slotMillis / OutcomeMinutes.MINUTE_MILLIS;
		long first = Math.floorDiv(from.toEpochMilli(), slotMillis);
		long end = Math.floorDiv(to.toEpochMilli() - 1, slotMillis) + 1;
		if (end <= first) {
			return List.of();
		}
		long[][] counts = new long[(int) Math.min(end - first, 100_000)][3];
		this.database.read("count run outcomes over time", (connection) -> {
			this.outcomeMinutes.sum(connection, first * slotMinutes, end * slotMinutes,
					(minute, succeeded, retried, failed) -> {
						long index = Math.floorDiv(minute, slotMinutes) - first;
						addOutcome(counts, index, 0, succeeded);
						addOutcome(counts, index, 1, failed);
						addOutcome(counts, index, 2, retried);
					});
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
	 * One read, then the storage's own answer to whether it takes writes: nothing is
	 * written and no lock is taken.
	 */
	@Override
	public void checkAvailable() {
		String refusal = this.database.read("check that the queue database can be read", (connection) -> {
			try (SqlStatement probe = sql(this.statements.readProbe).prepare(connection);
					ResultSet rows = probe.executeQuery()) {
				rows.next();
			}
			return this.storage.writeRefusal(connection);
		});
		if (refusal != null) {
			throw new JobQueueException(
					"The queue database " + this.database.location() + " cannot be written: " + refusal);
		}
	}

	/**
	 * Jobs per type and status: the unfinished ones counted from their indexes, the
	 * finished ones read from their kept counts ({@link FinishedCounts}), in the same
	 * snapshot.
	 */
	private Map<String, Map<JobStatus, Long>> counts(Connection connection) throws SQLException {
		Map<String, Map<JobStatus, Long>> counts = new TreeMap<>();
		try (SqlStatement select = sql(this.statements.counts).prepare(connection);
				ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				// Pending jobs come in two rows, with and without a key.
				counts.computeIfAbsent(rows.getString(1), (type) -> new EnumMap<>(JobStatus.class))
					.merge(JobStatus.fromDbValue(rows.getString(2)), rows.getLong(3), Long::sum);
			}
		}
		this.finishedCounts.read(connection, counts);
		return counts;
	}

	/**
	 * Attempts used by unfinished and failed jobs, per type. Pending jobs that never ran
	 * have no index entry of their own (they are most of the table): they are the pending
	 * count of {@code counts}, read in the same snapshot, less the pending jobs that ran.
	 */
	private Map<String, Map<Integer, Long>> retriesByType(Connection connection,
			Map<String, Map<JobStatus, Long>> counts) throws SQLException {
		Map<String, Map<Integer, Long>> retries = new TreeMap<>();
		Map<String, Long> neverRan = new TreeMap<>();
		counts.forEach((type, byStatus) -> {
			long pending = byStatus.getOrDefault(JobStatus.PENDING, 0L);
			if (pending > 0) {
				neverRan.put(type, pending);
			}
		});
		try (SqlStatement select = sql(this.statements.retries).prepare(connection);
				ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				String type = rows.getString(1);
				int attempts = rows.getInt(3);
				long count = rows.getLong(4);
				if (JobStatus.fromDbValue(rows.getString(2)) == JobStatus.PENDING && attempts > 0) {
					neverRan.computeIfPresent(type, (key, pending) -> pending - count);
				}
				retries.computeIfAbsent(type, (key) -> new TreeMap<>()).merge(attempts, count, Long::sum);
			}
		}
		neverRan.forEach((type, count) -> {
			if (count > 0) {
				retries.computeIfAbsent(type, (key) -> new TreeMap<>()).merge(0, count, Long::sum);
			}
		});
		return retries;
	}

	/** The {@code top} error codes by unfinished and failed jobs, the rest summed. */
	private ErrorSummary errors(Connection connection, int top) throws SQLException {
		Map<String, long[]> totals = new HashMap<>();
		Map<String, Map<String, Long>> byType = new HashMap<>();
		try (SqlStatement select = sql(this.statements.errors).prepare(connection);
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

	private List<WorkerState> workers(Connection connection, Instant aliveAfter) throws SQLException {
		List<WorkerState> workers = new ArrayList<>();
		try (SqlStatement select = sql(this.statements.workers).prepare(connection);
				ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				Set<String> types = Collections.unmodifiableSet(new LinkedHashSet<>(this.dialect.texts(rows, 4)));
				Instant heartbeat = this.dialect.instant(rows, 7);
				workers.add(new WorkerState(rows.getString(1), rows.getString(2), rows.getLong(3), types,
						rows.getInt(5), this.dialect.instant(rows, 6), heartbeat, !heartbeat.isBefore(aliveAfter)));
			}
		}
		workers.sort(Comparator.comparing(WorkerState::startedAt).thenComparing(WorkerState::workerId));
		return workers;
	}

	/** Pending jobs of types no live worker handles, by type. */
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

	private Sql sql(String template) {
		return this.tables.sql(template);
	}

}
