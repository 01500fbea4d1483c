package dev.jobqueue.sqlite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.PausedType;
import dev.jobqueue.core.ClaimRequest;
import dev.jobqueue.core.ClaimedJob;
import dev.jobqueue.core.CompleteAndClaim;
import dev.jobqueue.core.EnqueueVisibility;
import dev.jobqueue.core.Completion;
import dev.jobqueue.core.JobStore;
import dev.jobqueue.core.LeaseRenewal;
import dev.jobqueue.core.NewJob;
import dev.jobqueue.core.RunningJobRef;
import dev.jobqueue.core.WorkerInfo;

/**
 * The {@link JobStore} on SQLite. Statements are text blocks named after what they do; {@code {jobs}},
 * {@code {attempts}}, {@code {events}}, {@code {workers}} and {@code {p}} stand for the prefixed table and
 * index names. Every write is fenced where it touches a run: it matches the job's {@code runs} counter, so a
 * worker whose lease was taken over cannot overwrite the newer run's outcome.
 */
public final class SqliteJobStore implements JobStore {

	private static final String INSERT_JOB = """
			INSERT INTO {jobs} (type, status, priority, payload, dedup_key, max_attempts, run_at, created_at, trace_parent)
			VALUES (?, 'pending', ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING
			RETURNING id
			""";

	/** A job without a dedup key: nothing can conflict, and the id comes from last_insert_rowid(). */
	private static final String INSERT_JOB_WITHOUT_DEDUP_KEY = """
			INSERT INTO {jobs} (type, status, priority, payload, max_attempts, run_at, created_at, trace_parent)
			VALUES (?, 'pending', ?, ?, ?, ?, ?, ?)
			""";

	private static final String FIND_UNFINISHED_BY_DEDUP_KEY = """
			SELECT id FROM {jobs} WHERE dedup_key = ? AND status IN ('pending', 'running')
			""";

	private static final String INSERT_EVENT = """
			INSERT INTO {events} (job_id, at, event, actor, detail) VALUES (?, ?, ?, ?, ?)
			""";

	/** Due pending jobs of some types, in claim order; the claim then takes the best of all such lists. */
	private static final String CLAIM_CANDIDATES = """
			SELECT id, priority, run_at FROM {jobs} INDEXED BY %s
			WHERE status = 'pending' AND %s AND run_at <= ?
			ORDER BY priority DESC, run_at, id
			LIMIT ?
			""";

	/**
	 * The whole claim in one statement, when all claimable types form one group (no per-type caps): the best
	 * due jobs, by priority, due time and id on the partial index of pending jobs, skipping paused types.
	 */
	private static final String CLAIM_DUE = """
			UPDATE {jobs}
			SET status = 'running', runs = runs + 1, attempts = attempts + 1, worker_id = ?, started_at = ?,
			    heartbeat_at = ?, lease_until = ?,
			    repeatable = CASE WHEN type IN (SELECT value FROM json_each(?)) THEN 0 ELSE 1 END
			WHERE id IN (
			    SELECT id FROM {jobs} INDEXED BY %s
			    WHERE status = 'pending' AND %s AND run_at <= ? AND type NOT IN (SELECT type FROM {paused})
			    ORDER BY priority DESC, run_at, id
			    LIMIT ?)
			RETURNING id, type, payload, priority, runs, attempts, max_attempts, snoozes, run_at, created_at, trace_parent
			""";

	/** Takes the chosen jobs (ids and not-repeatable types as JSON arrays). */
	private static final String CLAIM_BY_IDS = """
			UPDATE {jobs}
			SET status = 'running', runs = runs + 1, attempts = attempts + 1, worker_id = ?, started_at = ?,
			    heartbeat_at = ?, lease_until = ?,
			    repeatable = CASE WHEN type IN (SELECT value FROM json_each(?)) THEN 0 ELSE 1 END
			WHERE id IN (SELECT value FROM json_each(?)) AND status = 'pending'
			RETURNING id, type, payload, priority, runs, attempts, max_attempts, snoozes, run_at, created_at, trace_parent
			""";

	private static final String SELECT_PAUSED_TYPE_NAMES = """
			SELECT type FROM {paused}
			""";

	/** Answered from jobs_status_type_idx (status, type). */
	private static final String COUNT_RUNNING_OF_TYPE = """
			SELECT count(*) FROM {jobs} WHERE status = 'running' AND type = ?
			""";

	private static final String INSERT_PAUSED_TYPE = """
			INSERT INTO {paused} (type, paused_at, paused_by) VALUES (?, ?, ?)
			ON CONFLICT (type) DO NOTHING
			""";

	private static final String DELETE_PAUSED_TYPE = """
			DELETE FROM {paused} WHERE type = ?
			""";

	private static final String SELECT_PAUSED_TYPES = """
			SELECT type, paused_at FROM {paused} ORDER BY type
			""";

	private static final String INSERT_ATTEMPT = """
			INSERT INTO {attempts} (job_id, run, attempt, worker_id, started_at) VALUES (?, ?, ?, ?, ?)
			""";

	private static final String MARK_SUCCEEDED = """
			UPDATE {jobs}
			SET status = 'succeeded', result = ?, finished_at = ?, lease_until = NULL, error_code = NULL, error_detail = NULL
			WHERE id = ? AND runs = ? AND status = 'running'
			""";

	private static final String MARK_FAILED = """
			UPDATE {jobs}
			SET status = 'failed', finished_at = ?, lease_until = NULL, error_code = ?, error_detail = ?
			WHERE id = ? AND runs = ? AND status = 'running'
			RETURNING status
			""";

	private static final String MARK_CANCELLED = """
			UPDATE {jobs}
			SET status = 'cancelled', finished_at = ?, lease_until = NULL
			WHERE id = ? AND runs = ? AND status = 'running'
			RETURNING status
			""";

	/** Back to pending: a retry after its backoff, or (giving the attempt back) a snooze or hand-back. */
	private static final String MARK_PENDING_AGAIN = """
			UPDATE {jobs}
			SET status = CASE WHEN cancel_requested = 1 THEN 'cancelled' ELSE 'pending' END,
			    finished_at = CASE WHEN cancel_requested = 1 THEN ? END,
			    run_at = ?, lease_until = NULL, error_code = coalesce(?, error_code), error_detail = coalesce(?, error_detail),
			    attempts = attempts - ?, snoozes = snoozes + ?
			WHERE id = ? AND runs = ? AND status = 'running'
			RETURNING status
			""";

	private static final String FINISH_ATTEMPT = """
			UPDATE {attempts} SET finished_at = ?, outcome = ?, error_code = ?, error_detail = ? WHERE job_id = ? AND run = ?
			""";

	private static final String RENEW_LEASE = """
			UPDATE {jobs} SET heartbeat_at = ?, lease_until = ?
			WHERE id = ? AND runs = ? AND status = 'running' AND worker_id = ?
			RETURNING cancel_requested
			""";

	private static final String ANY_EXPIRED_LEASE = """
			SELECT 1 FROM {jobs} WHERE status = 'running' AND lease_until < ? LIMIT 1
			""";

	/** Final when the job must not run twice or has no attempts left; SET expressions see the old row. */
	private static final String RECOVER_EXPIRED = """
			UPDATE {jobs}
			SET status = CASE WHEN cancel_requested = 1 THEN 'cancelled'
			                  WHEN repeatable = 0 OR attempts >= max_attempts THEN 'failed'
			                  ELSE 'pending' END,
			    error_code = CASE WHEN cancel_requested = 1 THEN error_code
			                      WHEN repeatable = 0 THEN 'LEASE_EXPIRED:NOT_REPEATABLE'
			                      WHEN attempts >= max_attempts THEN 'LEASE_EXPIRED:MAX_ATTEMPTS'
			                      ELSE 'LEASE_EXPIRED:WORKER_LOST' END,
			    error_detail = 'Worker ' || coalesce(worker_id, '?') || ' stopped renewing its lease, which expired at '
			                   || strftime('%Y-%m-%dT%H:%M:%fZ', lease_until / 1000.0, 'unixepoch'),
			    finished_at = CASE WHEN cancel_requested = 1 OR repeatable = 0 OR attempts >= max_attempts THEN ? END,
			    run_at = ?, lease_until = NULL
			WHERE id IN (SELECT id FROM {jobs} WHERE status = 'running' AND lease_until < ? LIMIT ?)
			RETURNING id, runs, status, error_code, error_detail
			""";

	private static final String CANCEL_PENDING = """
			UPDATE {jobs} SET status = 'cancelled', finished_at = ? WHERE id = ? AND status = 'pending'
			""";

	private static final String REQUEST_CANCEL_RUNNING = """
			UPDATE {jobs} SET cancel_requested = 1 WHERE id = ? AND status = 'running' AND cancel_requested = 0
			""";

	private static final String RETRY_FINISHED = """
			UPDATE {jobs}
			SET status = 'pending', attempts = 0, snoozes = 0, run_at = ?, finished_at = NULL, result = NULL,
			    cancel_requested = 0, lease_until = NULL
			WHERE id = ? AND status IN ('failed', 'cancelled')
			""";

	private static final String SELECT_JOB = """
			SELECT id, type, status, priority, payload, result, dedup_key, attempts, max_attempts, run_at, created_at,
			       started_at, finished_at, worker_id, heartbeat_at, lease_until, error_code, error_detail, cancel_requested
			FROM {jobs} WHERE id = ?
			""";

	private static final String UPSERT_WORKER = """
			INSERT INTO {workers} (worker_id, host, pid, types, concurrency, started_at, heartbeat_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, types = excluded.types,
			    concurrency = excluded.concurrency
			""";

	private static final String DELETE_WORKER = """
			DELETE FROM {workers} WHERE worker_id = ?
			""";

	private final SqliteDatabase database;

	private final TableNames tables;

	private final Map<String, String> claimStatements = new ConcurrentHashMap<>();

	/** The database's write-ahead log, once known; empty for an in-memory database. */
	private volatile Optional<Path> walFile;

	private final EnqueueVisibility visibility;

	private final HeldEnqueue heldEnqueue = new HeldEnqueue(this);

	public SqliteJobStore(SqliteDatabase database, TableNames tables) {
		this(database, tables, EnqueueVisibility.AFTER_COMMIT);
	}

	/**
	 * @param visibility when a job enqueued in a transaction on another database becomes visible to workers
	 */
	public SqliteJobStore(SqliteDatabase database, TableNames tables, EnqueueVisibility visibility) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.visibility = Objects.requireNonNull(visibility, "'visibility' must not be null");
	}

	public SqliteDatabase database() {
		return this.database;
	}

	public TableNames tables() {
		return this.tables;
	}

	@Override
	public List<Long> enqueue(List<NewJob> jobs, Instant now, Runnable afterCommit) {
		String action = (jobs.size() == 1) ? "enqueue a '" + jobs.get(0).type() + "' job" : "enqueue " + jobs.size() + " jobs";
		if (this.visibility == EnqueueVisibility.AFTER_COMMIT && this.database.inOtherTransaction()) {
			return this.heldEnqueue.enqueue(action, jobs, now, afterCommit);
		}
		return this.database.writeJoiningTransaction(action, (connection) -> insertJobs(connection, jobs, now),
				afterCommit);
	}

	List<Long> insertJobs(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		if (jobs.size() > 1 && jobs.stream().allMatch((job) -> job.dedupKey() == null)) {
			return insertJobsWithoutDedupKeys(connection, jobs, now);
		}
		List<Long> ids = new ArrayList<>(jobs.size());
		long at = now.toEpochMilli();
		try (PreparedStatement insert = connection.prepareStatement(sql(INSERT_JOB));
				PreparedStatement event = connection.prepareStatement(sql(INSERT_EVENT))) {
			for (NewJob job : jobs) {
				insert.setString(1, job.type());
				insert.setInt(2, job.priority());
				insert.setString(3, job.payload());
				insert.setString(4, job.dedupKey());
				insert.setInt(5, job.maxAttempts());
				insert.setLong(6, job.runAt().toEpochMilli());
				insert.setLong(7, at);
				insert.setString(8, job.traceParent());
				Long id = null;
				try (ResultSet rows = insert.executeQuery()) {
					if (rows.next()) {
						id = rows.getLong(1);
					}
				}
				if (id == null) {
					ids.add(existingByDedupKey(connection, job.dedupKey()));
					continue;
				}
				ids.add(id);
				addEvent(event, id, at, "ENQUEUED", null, null);
			}
			event.executeBatch();
		}
		return ids;
	}

	/**
	 * Many jobs without dedup keys: one JDBC batch without {@code RETURNING}, which costs about half the insert
	 * rate per row on this schema (measured in the benchmark module). The transaction holds the write lock while
	 * the batch runs, so AUTOINCREMENT gives the batch consecutive ids ending at {@code last_insert_rowid()}.
	 */
	private List<Long> insertJobsWithoutDedupKeys(Connection connection, List<NewJob> jobs, Instant now)
			throws SQLException {
		long at = now.toEpochMilli();
		try (PreparedStatement insert = connection.prepareStatement(sql(INSERT_JOB_WITHOUT_DEDUP_KEY));
				PreparedStatement event = connection.prepareStatement(sql(INSERT_EVENT));
				java.sql.Statement lastId = connection.createStatement()) {
			for (NewJob job : jobs) {
				insert.setString(1, job.type());
				insert.setInt(2, job.priority());
				insert.setString(3, job.payload());
				insert.setInt(4, job.maxAttempts());
				insert.setLong(5, job.runAt().toEpochMilli());
				insert.setLong(6, at);
				insert.setString(7, job.traceParent());
				insert.addBatch();
			}
			insert.executeBatch();
			long last;
			try (ResultSet rows = lastId.executeQuery("SELECT last_insert_rowid()")) {
				rows.next();
				last = rows.getLong(1);
			}
			List<Long> ids = new ArrayList<>(jobs.size());
			for (long id = last - jobs.size() + 1; id <= last; id++) {
				ids.add(id);
				addEvent(event, id, at, "ENQUEUED", null, null);
			}
			event.executeBatch();
			return ids;
		}
	}

	private long existingByDedupKey(Connection connection, String dedupKey) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement(sql(FIND_UNFINISHED_BY_DEDUP_KEY))) {
			select.setString(1, dedupKey);
			try (ResultSet rows = select.executeQuery()) {
				if (rows.next()) {
					return rows.getLong(1);
				}
			}
		}
		throw new SQLException("A job insert was ignored but no unfinished job has its dedup key '" + dedupKey + "'");
	}

	/**
	 * Claims in one {@code BEGIN IMMEDIATE} transaction. Each group of types (all types without a cap together,
	 * then each capped type alone) yields its best candidates; the claim takes the best of them all by priority,
	 * due time and id, so a flood of low-priority jobs of one type never starves higher-priority jobs of
	 * another. Paused types are left out, and a type with a global cap gets no more than the cap minus its jobs
	 * running anywhere, counted in this same transaction.
	 */
	@Override
	public List<ClaimedJob> claim(ClaimRequest request, Instant now) {
		if (request.isEmpty()) {
			return List.of();
		}
		return this.database.write("claim jobs", (connection) -> claimIn(connection, request, now));
	}

	@Override
	public CompleteAndClaim completeAndClaim(List<Completion> completions, String workerId, ClaimRequest request,
			Instant now) {
		if (completions.isEmpty()) {
			return new CompleteAndClaim(new boolean[0], claim(request, now));
		}
		if (request.isEmpty()) {
			return new CompleteAndClaim(complete(completions, workerId, now), List.of());
		}
		return this.database.write("record the outcome of " + completions.size() + " job(s) and claim jobs",
				(connection) -> {
					boolean[] applied = writeCompletions(connection, completions, workerId, now);
					return new CompleteAndClaim(applied, claimIn(connection, request, now));
				});
	}

	private List<ClaimedJob> claimIn(Connection connection, ClaimRequest request, Instant now) throws SQLException {
		if (request.limitedTypes().isEmpty()) {
			List<ClaimedJob> claimed = claimDue(connection, request, now);
			recordClaims(connection, claimed, request.workerId(), now);
			return claimed;
		}
		Set<String> paused = pausedTypeNames(connection);
		List<Candidate> candidates = new ArrayList<>();
		Set<String> unlimited = new HashSet<>(request.unlimitedTypes());
		unlimited.removeAll(paused);
		if (!unlimited.isEmpty()) {
			selectCandidates(connection, candidates, unlimited, request.limit(), now);
		}
		for (Map.Entry<String, Integer> limited : request.limitedTypes().entrySet()) {
			String type = limited.getKey();
			if (paused.contains(type)) {
				continue;
			}
			int room = Math.min(limited.getValue(), request.limit());
			Integer globalCap = request.globalLimits().get(type);
			if (globalCap != null && room > 0) {
				room = Math.min(room, globalCap - runningOfType(connection, type));
			}
			if (room > 0) {
				selectCandidates(connection, candidates, Set.of(type), room, now);
			}
		}
		if (candidates.isEmpty()) {
			return List.<ClaimedJob>of();
		}
		candidates.sort(Candidate.CLAIM_ORDER);
		List<Candidate> chosen = candidates.subList(0, Math.min(request.limit(), candidates.size()));
		List<ClaimedJob> claimed = claimByIds(connection, chosen, request, now);
		recordClaims(connection, claimed, request.workerId(), now);
		return claimed;
	}

	private List<ClaimedJob> claimDue(Connection connection, ClaimRequest request, Instant now) throws SQLException {
		Set<String> types = request.unlimitedTypes();
		try (PreparedStatement claim = connection.prepareStatement(claimDueStatement(types.size()))) {
			int i = bindClaimedBy(claim, request, now);
			for (String type : types) {
				claim.setString(i++, type);
			}
			claim.setLong(i++, now.toEpochMilli());
			claim.setInt(i, request.limit());
			return readClaimed(claim);
		}
	}

	/**
	 * Binds the SET part both claim statements share: worker, claim time, heartbeat, lease and the types that must
	 * not run twice.
	 * @return the next parameter index
	 */
	private static int bindClaimedBy(PreparedStatement claim, ClaimRequest request, Instant now) throws SQLException {
		claim.setString(1, request.workerId());
		claim.setLong(2, now.toEpochMilli());
		claim.setLong(3, now.toEpochMilli());
		claim.setLong(4, request.leaseUntil().toEpochMilli());
		claim.setString(5, jsonStrings(request.notRepeatableTypes()));
		return 6;
	}

	/** The single-statement claim for {@code typeCount} types, for tests of its query plan. */
	String claimDueStatement(int typeCount) {
		return this.claimStatements.computeIfAbsent("due/" + typeCount, (key) -> {
			String index = (typeCount == 1) ? this.tables.index("jobs_claim_type_idx")
					: this.tables.index("jobs_claim_idx");
			String typeFilter = (typeCount == 1) ? "type = ?" : "type IN (" + placeholders(typeCount) + ")";
			return sql(CLAIM_DUE.formatted(index, typeFilter));
		});
	}

	private static List<ClaimedJob> readClaimed(PreparedStatement claim) throws SQLException {
		List<ClaimedJob> claimed = new ArrayList<>();
		try (ResultSet rows = claim.executeQuery()) {
			while (rows.next()) {
				claimed.add(new ClaimedJob(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getInt(4),
						rows.getInt(5), rows.getInt(6), rows.getInt(7), rows.getInt(8),
						Instant.ofEpochMilli(rows.getLong(9)), Instant.ofEpochMilli(rows.getLong(10)),
						rows.getString(11)));
			}
		}
		// RETURNING does not keep any order.
		claimed.sort(Comparator.comparingInt(ClaimedJob::priority)
			.reversed()
			.thenComparing(ClaimedJob::runAt)
			.thenComparingLong(ClaimedJob::id));
		return claimed;
	}

	private Set<String> pausedTypeNames(Connection connection) throws SQLException {
		Set<String> paused = new HashSet<>();
		try (PreparedStatement select = connection.prepareStatement(sql(SELECT_PAUSED_TYPE_NAMES));
				ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				paused.add(rows.getString(1));
			}
		}
		return paused;
	}

	private int runningOfType(Connection connection, String type) throws SQLException {
		try (PreparedStatement count = connection.prepareStatement(sql(COUNT_RUNNING_OF_TYPE))) {
			count.setString(1, type);
			try (ResultSet rows = count.executeQuery()) {
				return rows.next() ? rows.getInt(1) : 0;
			}
		}
	}

	private void selectCandidates(Connection connection, List<Candidate> candidates, Set<String> types, int limit,
			Instant now) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement(candidateStatement(types.size()))) {
			int i = 1;
			for (String type : types) {
				select.setString(i++, type);
			}
			select.setLong(i++, now.toEpochMilli());
			select.setInt(i, limit);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					candidates.add(new Candidate(rows.getLong(1), rows.getInt(2), rows.getLong(3)));
				}
			}
		}
	}

	private List<ClaimedJob> claimByIds(Connection connection, List<Candidate> chosen, ClaimRequest request,
			Instant now) throws SQLException {
		try (PreparedStatement claim = connection.prepareStatement(sql(CLAIM_BY_IDS))) {
			int i = bindClaimedBy(claim, request, now);
			StringBuilder ids = new StringBuilder("[");
			for (Candidate candidate : chosen) {
				ids.append((ids.length() > 1) ? "," : "").append(candidate.id());
			}
			claim.setString(i, ids.append(']').toString());
			return readClaimed(claim);
		}
	}

	private String candidateStatement(int typeCount) {
		return this.claimStatements.computeIfAbsent("candidates/" + typeCount, (key) -> {
			String index = (typeCount == 1) ? this.tables.index("jobs_claim_type_idx")
					: this.tables.index("jobs_claim_idx");
			String typeFilter = (typeCount == 1) ? "type = ?" : "type IN (" + placeholders(typeCount) + ")";
			return sql(CLAIM_CANDIDATES.formatted(index, typeFilter));
		});
	}

	static String jsonStrings(Collection<String> values) {
		StringBuilder json = new StringBuilder("[");
		for (String value : values) {
			if (json.length() > 1) {
				json.append(',');
			}
			json.append('"');
			for (char c : value.toCharArray()) {
				if (c == '"' || c == '\\') {
					json.append('\\').append(c);
				}
				else if (c < 0x20) {
					json.append(String.format("\\u%04x", (int) c));
				}
				else {
					json.append(c);
				}
			}
			json.append('"');
		}
		return json.append(']').toString();
	}

	/** A due pending job found by a claim, before it is taken. */
	private record Candidate(long id, int priority, long runAt) {

		static final Comparator<Candidate> CLAIM_ORDER = Comparator.comparingInt(Candidate::priority)
			.reversed()
			.thenComparingLong(Candidate::runAt)
			.thenComparingLong(Candidate::id);

	}

	private void recordClaims(Connection connection, List<ClaimedJob> claimed, String workerId, Instant now)
			throws SQLException {
		if (claimed.isEmpty()) {
			return;
		}
		long at = now.toEpochMilli();
		try (PreparedStatement attempt = connection.prepareStatement(sql(INSERT_ATTEMPT));
				PreparedStatement event = connection.prepareStatement(sql(INSERT_EVENT))) {
			for (ClaimedJob job : claimed) {
				attempt.setLong(1, job.id());
				attempt.setInt(2, job.run());
				attempt.setInt(3, job.attempt());
				attempt.setString(4, workerId);
				attempt.setLong(5, at);
				attempt.addBatch();
				addEvent(event, job.id(), at, "CLAIMED", workerId, "attempt " + job.attempt() + "/" + job.maxAttempts());
			}
			attempt.executeBatch();
			event.executeBatch();
		}
	}

	@Override
	public boolean[] complete(List<Completion> completions, String workerId, Instant now) {
		if (completions.isEmpty()) {
			return new boolean[0];
		}
		return this.database.write("record the outcome of " + completions.size() + " job(s)",
				(connection) -> writeCompletions(connection, completions, workerId, now));
	}

	private boolean[] writeCompletions(Connection connection, List<Completion> completions, String workerId,
			Instant now) throws SQLException {
		long at = now.toEpochMilli();
		boolean[] applied = new boolean[completions.size()];
		String[] statuses = new String[completions.size()];
		List<Integer> successes = new ArrayList<>();
		for (int i = 0; i < completions.size(); i++) {
			if (completions.get(i).kind() == Completion.Kind.SUCCEEDED) {
				successes.add(i);
			}
			else {
				statuses[i] = markOther(connection, completions.get(i), at);
				applied[i] = statuses[i] != null;
			}
		}
		if (!successes.isEmpty()) {
			try (PreparedStatement succeed = connection.prepareStatement(sql(MARK_SUCCEEDED))) {
				for (int i : successes) {
					Completion completion = completions.get(i);
					succeed.setString(1, completion.result());
					succeed.setLong(2, at);
					succeed.setLong(3, completion.jobId());
					succeed.setInt(4, completion.run());
					succeed.addBatch();
				}
				int[] counts = succeed.executeBatch();
				for (int k = 0; k < successes.size(); k++) {
					int i = successes.get(k);
					applied[i] = counts[k] > 0;
					statuses[i] = "succeeded";
				}
			}
		}
		try (PreparedStatement attempt = connection.prepareStatement(sql(FINISH_ATTEMPT));
				PreparedStatement event = connection.prepareStatement(sql(INSERT_EVENT))) {
			for (int i = 0; i < completions.size(); i++) {
				if (applied[i]) {
					recordOutcome(attempt, event, completions.get(i), statuses[i], workerId, at);
				}
			}
			attempt.executeBatch();
			event.executeBatch();
		}
		return applied;
	}

	/** @return the job's new status, or {@code null} if the run no longer holds the job */
	private String markOther(Connection connection, Completion completion, long at) throws SQLException {
		switch (completion.kind()) {
			case FAILED -> {
				try (PreparedStatement fail = connection.prepareStatement(sql(MARK_FAILED))) {
					fail.setLong(1, at);
					fail.setString(2, completion.errorCode());
					fail.setString(3, completion.errorDetail());
					fail.setLong(4, completion.jobId());
					fail.setInt(5, completion.run());
					return singleString(fail);
				}
			}
			case CANCELLED -> {
				try (PreparedStatement cancel = connection.prepareStatement(sql(MARK_CANCELLED))) {
					cancel.setLong(1, at);
					cancel.setLong(2, completion.jobId());
					cancel.setInt(3, completion.run());
					return singleString(cancel);
				}
			}
			default -> {
				boolean givesAttemptBack = completion.kind() != Completion.Kind.RETRY;
				try (PreparedStatement pending = connection.prepareStatement(sql(MARK_PENDING_AGAIN))) {
					pending.setLong(1, at);
					pending.setLong(2, completion.nextRunAt().toEpochMilli());
					pending.setString(3, completion.errorCode());
					pending.setString(4, completion.errorDetail());
					pending.setInt(5, givesAttemptBack ? 1 : 0);
					pending.setInt(6, (completion.kind() == Completion.Kind.SNOOZED) ? 1 : 0);
					pending.setLong(7, completion.jobId());
					pending.setInt(8, completion.run());
					return singleString(pending);
				}
			}
		}
	}

	private void recordOutcome(PreparedStatement attempt, PreparedStatement event, Completion completion,
			String status, String workerId, long at) throws SQLException {
		String outcome = switch (completion.kind()) {
			case SUCCEEDED -> "SUCCEEDED";
			case RETRY, FAILED -> "FAILED";
			case SNOOZED -> "SNOOZED";
			case CANCELLED -> "CANCELLED";
			case HANDED_BACK -> "HANDED_BACK";
		};
		attempt.setLong(1, at);
		attempt.setString(2, outcome);
		attempt.setString(3, completion.errorCode());
		attempt.setString(4, completion.errorDetail());
		attempt.setLong(5, completion.jobId());
		attempt.setInt(6, completion.run());
		attempt.addBatch();
		if ("cancelled".equals(status)) {
			addEvent(event, completion.jobId(), at, "CANCELLED", workerId, null);
			return;
		}
		switch (completion.kind()) {
			case SUCCEEDED -> addEvent(event, completion.jobId(), at, "SUCCEEDED", workerId, null);
			case FAILED -> addEvent(event, completion.jobId(), at, "FAILED", workerId, completion.errorCode());
			case RETRY -> addEvent(event, completion.jobId(), at, "RETRY_SCHEDULED", workerId,
					completion.errorCode() + " retry at " + completion.nextRunAt());
			case SNOOZED -> addEvent(event, completion.jobId(), at, "SNOOZED", workerId,
					"until " + completion.nextRunAt());
			case CANCELLED -> addEvent(event, completion.jobId(), at, "CANCELLED", workerId, null);
			case HANDED_BACK -> addEvent(event, completion.jobId(), at, "HANDED_BACK", workerId,
					"worker stopped before the run ended");
		}
	}

	/**
	 * Size and modification time of the write-ahead log: every commit of any process appends to it (or, after a
	 * checkpoint, rewrites it), so a change means another process may have enqueued. A stat call, no query.
	 */
	@Override
	public Object changeToken() {
		Optional<Path> wal = this.walFile;
		if (wal == null) {
			wal = this.database.read("find the database file", (connection) -> Optional
				.ofNullable(SqliteDataSources.fileOf(connection.getMetaData().getURL()))
				.map((file) -> file.resolveSibling(file.getFileName() + "-wal")));
			this.walFile = wal;
		}
		if (wal.isEmpty()) {
			return null;
		}
		try {
			BasicFileAttributes attributes = Files.readAttributes(wal.get(), BasicFileAttributes.class);
			return attributes.size() + "@" + attributes.lastModifiedTime().toMillis() + "."
					+ attributes.lastModifiedTime().toInstant().getNano();
		}
		catch (IOException ex) {
			return "no-wal";
		}
	}

	@Override
	public LeaseRenewal renewLeases(String workerId, Collection<RunningJobRef> runs, Instant now, Instant leaseUntil) {
		if (runs.isEmpty()) {
			return LeaseRenewal.NONE;
		}
		return this.database.write("renew the leases of " + runs.size() + " running job(s)", (connection) -> {
			Set<Long> cancelRequested = new HashSet<>();
			Set<Long> lost = new HashSet<>();
			try (PreparedStatement renew = connection.prepareStatement(sql(RENEW_LEASE))) {
				for (RunningJobRef run : runs) {
					renew.setLong(1, now.toEpochMilli());
					renew.setLong(2, leaseUntil.toEpochMilli());
					renew.setLong(3, run.jobId());
					renew.setInt(4, run.run());
					renew.setString(5, workerId);
					try (ResultSet rows = renew.executeQuery()) {
						if (!rows.next()) {
							lost.add(run.jobId());
						}
						else if (rows.getInt(1) == 1) {
							cancelRequested.add(run.jobId());
						}
					}
				}
			}
			return new LeaseRenewal(cancelRequested, lost);
		});
	}

	@Override
	public int recoverExpiredLeases(Instant now, int limit) {
		long at = now.toEpochMilli();
		boolean any = this.database.read("look for expired leases", (connection) -> {
			try (PreparedStatement select = connection.prepareStatement(sql(ANY_EXPIRED_LEASE))) {
				select.setLong(1, at);
				try (ResultSet rows = select.executeQuery()) {
					return rows.next();
				}
			}
		});
		if (!any) {
			return 0;
		}
		return this.database.write("recover jobs with expired leases", (connection) -> {
			int recovered = 0;
			try (PreparedStatement recover = connection.prepareStatement(sql(RECOVER_EXPIRED));
					PreparedStatement attempt = connection.prepareStatement(sql(FINISH_ATTEMPT));
					PreparedStatement event = connection.prepareStatement(sql(INSERT_EVENT))) {
				recover.setLong(1, at);
				recover.setLong(2, at);
				recover.setLong(3, at);
				recover.setInt(4, limit);
				try (ResultSet rows = recover.executeQuery()) {
					while (rows.next()) {
						recovered++;
						long id = rows.getLong(1);
						String status = rows.getString(3);
						String detail = rows.getString(5);
						attempt.setLong(1, at);
						attempt.setString(2, "LEASE_EXPIRED");
						attempt.setString(3, "LEASE_EXPIRED:WORKER_LOST");
						attempt.setString(4, detail);
						attempt.setLong(5, id);
						attempt.setInt(6, rows.getInt(2));
						attempt.addBatch();
						String eventName = switch (status) {
							case "pending" -> "RECOVERED";
							case "cancelled" -> "CANCELLED";
							default -> "FAILED";
						};
						addEvent(event, id, at, eventName, "recovery", rows.getString(4) + ": " + detail);
					}
				}
				attempt.executeBatch();
				event.executeBatch();
			}
			return recovered;
		});
	}

	@Override
	public boolean cancel(long id, Instant now) {
		return cancel(id, now, () -> {
		});
	}

	@Override
	public boolean cancel(long id, Instant now, Runnable afterCommit) {
		long at = now.toEpochMilli();
		return this.database.writeJoiningTransaction("cancel job " + id, (connection) -> {
			try (PreparedStatement cancel = connection.prepareStatement(sql(CANCEL_PENDING));
					PreparedStatement event = connection.prepareStatement(sql(INSERT_EVENT))) {
				cancel.setLong(1, at);
				cancel.setLong(2, id);
				if (cancel.executeUpdate() == 1) {
					addEvent(event, id, at, "CANCELLED", "api", "cancelled while pending");
					event.executeBatch();
					return true;
				}
				try (PreparedStatement request = connection.prepareStatement(sql(REQUEST_CANCEL_RUNNING))) {
					request.setLong(1, id);
					if (request.executeUpdate() == 1) {
						addEvent(event, id, at, "CANCEL_REQUESTED", "api", "running: the handler is interrupted");
						event.executeBatch();
						return true;
					}
				}
				return false;
			}
		}, ifApplied(afterCommit));
	}

	@Override
	public boolean retry(long id, Instant now) {
		return retry(id, now, () -> {
		});
	}

	@Override
	public boolean retry(long id, Instant now, Runnable afterCommit) {
		long at = now.toEpochMilli();
		try {
			return this.database.writeJoiningTransaction("retry job " + id, (connection) -> {
				try (PreparedStatement retry = connection.prepareStatement(sql(RETRY_FINISHED));
						PreparedStatement event = connection.prepareStatement(sql(INSERT_EVENT))) {
					retry.setLong(1, at);
					retry.setLong(2, id);
					if (retry.executeUpdate() == 0) {
						return false;
					}
					addEvent(event, id, at, "RETRIED", "api", "back to pending with a fresh set of attempts");
					event.executeBatch();
					return true;
				}
			}, ifApplied(afterCommit));
		}
		catch (JobQueueException ex) {
			if (ex.getCause() instanceof SQLException sql && SqliteErrors.primaryCode(sql) == SqliteErrors.SQLITE_CONSTRAINT) {
				throw new JobQueueException("Job " + id + " cannot be retried: another unfinished job has the same "
						+ "dedup key. Let that job finish or cancel it first.", ex);
			}
			throw ex;
		}
	}

	@Override
	public Optional<Job> find(long id) {
		return this.database.read("read job " + id, (connection) -> {
			try (PreparedStatement select = connection.prepareStatement(sql(SELECT_JOB))) {
				select.setLong(1, id);
				try (ResultSet rows = select.executeQuery()) {
					return rows.next() ? Optional.of(mapJob(rows)) : Optional.empty();
				}
			}
		});
	}

	static Job mapJob(ResultSet rows) throws SQLException {
		return new Job(rows.getLong("id"), rows.getString("type"), JobStatus.fromDbValue(rows.getString("status")),
				rows.getInt("priority"), rows.getString("payload"), rows.getString("result"),
				rows.getString("dedup_key"), rows.getInt("attempts"), rows.getInt("max_attempts"),
				instant(rows, "run_at"), instant(rows, "created_at"), instant(rows, "started_at"),
				instant(rows, "finished_at"), rows.getString("worker_id"), instant(rows, "heartbeat_at"),
				instant(rows, "lease_until"), rows.getString("error_code"), rows.getString("error_detail"),
				rows.getInt("cancel_requested") == 1);
	}

	static Instant instant(ResultSet rows, String column) throws SQLException {
		long millis = rows.getLong(column);
		return rows.wasNull() ? null : Instant.ofEpochMilli(millis);
	}

	@Override
	public void recordEvent(long jobId, String event, String actor, String detail, Instant now) {
		this.database.write("record event " + event + " of job " + jobId, (connection) -> {
			try (PreparedStatement insert = connection.prepareStatement(sql(INSERT_EVENT))) {
				addEvent(insert, jobId, now.toEpochMilli(), event, actor, detail);
				return insert.executeBatch().length;
			}
		});
	}

	@Override
	public boolean pause(String type, String actor, Instant now) {
		return this.database.writeJoiningTransaction("pause job type '" + type + "'", (connection) -> {
			try (PreparedStatement insert = connection.prepareStatement(sql(INSERT_PAUSED_TYPE))) {
				insert.setString(1, type);
				insert.setLong(2, now.toEpochMilli());
				insert.setString(3, actor);
				return insert.executeUpdate() == 1;
			}
		}, () -> {
		});
	}

	@Override
	public boolean resume(String type) {
		return resume(type, () -> {
		});
	}

	@Override
	public boolean resume(String type, Runnable afterCommit) {
		return this.database.writeJoiningTransaction("resume job type '" + type + "'", (connection) -> {
			try (PreparedStatement delete = connection.prepareStatement(sql(DELETE_PAUSED_TYPE))) {
				delete.setString(1, type);
				return delete.executeUpdate() == 1;
			}
		}, ifApplied(afterCommit));
	}

	/** Runs {@code afterCommit} only when the write changed something. */
	private static Consumer<Boolean> ifApplied(Runnable afterCommit) {
		return (applied) -> {
			if (applied) {
				afterCommit.run();
			}
		};
	}

	@Override
	public List<PausedType> pausedTypes() {
		return this.database.read("read paused job types", (connection) -> {
			List<PausedType> paused = new ArrayList<>();
			try (PreparedStatement select = connection.prepareStatement(sql(SELECT_PAUSED_TYPES));
					ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					paused.add(new PausedType(rows.getString(1), Instant.ofEpochMilli(rows.getLong(2))));
				}
			}
			return paused;
		});
	}

	@Override
	public void registerWorker(WorkerInfo worker, Instant now) {
		this.database.write("register worker " + worker.workerId(), (connection) -> {
			try (PreparedStatement upsert = connection.prepareStatement(sql(UPSERT_WORKER))) {
				upsert.setString(1, worker.workerId());
				upsert.setString(2, worker.host());
				upsert.setLong(3, worker.pid());
				upsert.setString(4, String.join(",", new java.util.TreeSet<>(worker.types())));
				upsert.setInt(5, worker.concurrency());
				upsert.setLong(6, now.toEpochMilli());
				upsert.setLong(7, now.toEpochMilli());
				return upsert.executeUpdate();
			}
		});
	}

	@Override
	public void unregisterWorker(String workerId) {
		this.database.write("unregister worker " + workerId, (connection) -> {
			try (PreparedStatement delete = connection.prepareStatement(sql(DELETE_WORKER))) {
				delete.setString(1, workerId);
				return delete.executeUpdate();
			}
		});
	}

	static void addEvent(PreparedStatement event, long jobId, long at, String name, String actor,
			String detail) throws SQLException {
		event.setLong(1, jobId);
		event.setLong(2, at);
		event.setString(3, name);
		if (actor != null) {
			event.setString(4, actor);
		}
		else {
			event.setNull(4, Types.VARCHAR);
		}
		if (detail != null) {
			event.setString(5, detail);
		}
		else {
			event.setNull(5, Types.VARCHAR);
		}
		event.addBatch();
	}

	private static String singleString(PreparedStatement statement) throws SQLException {
		try (ResultSet rows = statement.executeQuery()) {
			return rows.next() ? rows.getString(1) : null;
		}
	}

	private static String placeholders(int count) {
		return String.join(", ", java.util.Collections.nCopies(count, "?"));
	}

	String sql(String template) {
		return this.tables.expand(template);
	}

}
