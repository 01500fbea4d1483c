package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.CompleteAndClaim;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.ExpiredLease;
import dev.jobqueue.core.store.JobProgress;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.LinkedJobs;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.core.store.WorkerInfo;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JobStore} on PostgreSQL. Statements name their parameters ({@code :job_id})
 * and their tables ({@code {jobs}}, see {@link Tables}). Every write that touches a run
 * is fenced: it matches the job's {@code runs} counter and status, so a worker whose
 * lease was taken over cannot overwrite the newer run's outcome. Enqueues and cancels of
 * running jobs send a notification in their transaction, which PostgreSQL delivers to the
 * other processes on commit (see {@link PostgresNotifications}).
 *
 * <p>
 * Over 400 lines: each statement is a text block beside the code that binds it. The split
 * the SQLite store has (inserts, claims, completions in classes of their own) is not done
 * here yet.
 */
public final class PostgresJobStore implements JobStore {

	/**
	 * Wakes listeners once per transaction: an uncorrelated subquery runs once, and only
	 * if a row was inserted.
	 */
	private static final String NOTIFY = "(SELECT pg_notify(:channel, :message))";

	/**
	 * Whether jobs wait for the updated job {@code j}: one probe of the dependency
	 * table's primary key, so only a job with dependents costs a settle statement.
	 */
	private static final String HAS_DEPENDENTS = "EXISTS (SELECT 1 FROM {dependencies} d WHERE d.depends_on = j.id AND NOT d.settled)";

	static final String INSERT_JOB = """
			WITH inserted AS (
			    INSERT INTO {jobs} (type, status, priority, payload, dedup_key, max_attempts, run_at, created_at, trace_parent)
			    VALUES (:type, 'pending', :priority, :payload, :dedup_key, :max_attempts, :run_at, :now, :trace_parent)
			    ON CONFLICT (dedup_key) WHERE dedup_key IS NOT NULL AND status IN ('pending', 'running') DO NOTHING
			    RETURNING id
			), event_rows AS (
			    INSERT INTO {events} (job_id, at, event) SELECT id, :now, 'ENQUEUED' FROM inserted
			)
			SELECT id, %s FROM inserted
			"""
		.formatted(NOTIFY);

	/**
	 * Many jobs without dedup keys in one statement; ids come in request order (identity
	 * follows ORDER BY).
	 */
	static final String INSERT_JOBS = """
			WITH inserted AS (
			    INSERT INTO {jobs} (type, status, priority, payload, max_attempts, run_at, created_at, trace_parent)
			    SELECT type, 'pending', priority, payload, max_attempts, run_at::timestamptz, :now, trace_parent
			    FROM unnest(:types::text[], :priorities::int[], :payloads::text[], :max_attempts::int[],
			                :run_ats::text[], :trace_parents::text[])
			         WITH ORDINALITY AS j(type, priority, payload, max_attempts, run_at, trace_parent, ord)
			    ORDER BY ord
			    RETURNING id
			), event_rows AS (
			    INSERT INTO {events} (job_id, at, event) SELECT id, :now, 'ENQUEUED' FROM inserted
			)
			SELECT id, %s FROM inserted ORDER BY id
			""".formatted(NOTIFY);

	private static final String FIND_UNFINISHED_BY_DEDUP_KEY = """
			SELECT id FROM {jobs} WHERE dedup_key = :dedup_key AND status IN ('pending', 'running')
			""";

	private static final String INSERT_EVENT = """
			INSERT INTO {events} (job_id, at, event, actor, detail) VALUES (:job_id, :at, :event, :actor, :detail)
			""";

	/** All successes of a round in one statement, with their attempt rows and events. */
	static final String MARK_SUCCEEDED = """
			WITH done AS (
			    UPDATE {jobs} j
			    SET status = 'succeeded', result = s.result, finished_at = :now, lease_until = NULL, error_code = NULL,
			        error_detail = NULL
			    FROM unnest(:ids::bigint[], :runs::int[], :results::text[]) AS s(id, run, result)
			    WHERE j.id = s.id AND j.runs = s.run AND j.status = 'running'
			    RETURNING j.id, j.runs
			), attempt_rows AS (
			    UPDATE {attempts} a SET finished_at = :now, outcome = 'SUCCEEDED'
			    FROM done WHERE a.job_id = done.id AND a.run = done.runs
			), event_rows AS (
			    INSERT INTO {events} (job_id, at, event, actor) SELECT id, :now, 'SUCCEEDED', :worker_id FROM done
			)
			SELECT id, EXISTS (SELECT 1 FROM {dependencies} d WHERE d.depends_on = done.id AND NOT d.settled) FROM done
			""";

	private static final String MARK_FAILED = """
			UPDATE {jobs} j
			SET status = 'failed', finished_at = :now, lease_until = NULL, error_code = :error_code,
			    error_detail = :error_detail
			WHERE j.id = :job_id AND j.runs = :run AND j.status = 'running'
			RETURNING j.status, %s
			""".formatted(HAS_DEPENDENTS);

	private static final String MARK_CANCELLED = """
			UPDATE {jobs} j
			SET status = 'cancelled', finished_at = :now, lease_until = NULL
			WHERE j.id = :job_id AND j.runs = :run AND j.status = 'running'
			RETURNING j.status, %s
			""".formatted(HAS_DEPENDENTS);

	/**
	 * Back to pending: a retry after its backoff, or (giving the attempt back) a snooze
	 * or hand-back.
	 */
	private static final String MARK_PENDING_AGAIN = """
			UPDATE {jobs} j
			SET status = CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'pending' END,
			    finished_at = CASE WHEN j.cancel_requested THEN :now::timestamptz END,
			    run_at = :next_run_at, lease_until = NULL, error_code = coalesce(:error_code::text, j.error_code),
			    error_detail = coalesce(:error_detail::text, j.error_detail), attempts = j.attempts - :gives_back,
			    snoozes = j.snoozes + :snoozed
			WHERE j.id = :job_id AND j.runs = :run AND j.status = 'running'
			RETURNING j.status, %s
			""".formatted(HAS_DEPENDENTS);

	private static final String FINISH_ATTEMPT = """
			UPDATE {attempts} SET finished_at = :now, outcome = :outcome, error_code = :error_code,
			    error_detail = :error_detail, error_trace = :error_trace
			WHERE job_id = :job_id AND run = :run
			""";

	/**
	 * Renews the leases of a worker's runs in one statement; a run missing from the
	 * result was lost. The lease, and {@code heartbeat_at} only of jobs waiting for a
	 * slot (no handler yet): a started job's is its handler's own ({@link #HEARTBEAT}),
	 * so a hung handler shows as stuck.
	 */
	static final String RENEW_LEASES = """
			UPDATE {jobs} j SET lease_until = :lease_until,
			    heartbeat_at = CASE WHEN r.waiting THEN :now ELSE j.heartbeat_at END
			FROM unnest(:ids::bigint[], :runs::int[], :waiting::boolean[]) AS r(id, run, waiting)
			WHERE j.id = r.id AND j.runs = r.run AND j.status = 'running' AND j.worker_id = :worker_id
			RETURNING j.id, j.cancel_requested
			""";

	/**
	 * A handler's heartbeat: it is alive (what "stuck" is measured on), and its lease is
	 * extended.
	 */
	static final String HEARTBEAT = """
			UPDATE {jobs} SET heartbeat_at = :now, lease_until = :lease_until
			WHERE id = :job_id AND runs = :run AND status = 'running' AND worker_id = :worker_id
			RETURNING cancel_requested
			""";

	/**
	 * A run's progress, fenced on the run like every write of it. Progress is proof of
	 * the handler's life too: it moves the heartbeat, not the lease.
	 */
	static final String RECORD_PROGRESS = """
			UPDATE {jobs} SET progress_done = :done, progress_total = :total, progress_message = :message,
			    progress_at = :now, heartbeat_at = :now
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

	private static final String FIND_EXPIRED = """
			SELECT id, runs, lease_until FROM {jobs} WHERE status = 'running' AND lease_until < :now
			ORDER BY lease_until LIMIT :limit
			""";

	/**
	 * How a lease that expired ends (the SET clause both recoveries share): cancelled
	 * when a cancel was asked for, failed when the job must not run twice or has no
	 * attempts left, else pending again.
	 */
	private static final String RECOVERED = """
			SET status = CASE WHEN j.cancel_requested THEN 'cancelled'
			                  WHEN NOT j.repeatable OR j.attempts >= j.max_attempts THEN 'failed'
			                  ELSE 'pending' END,
			    error_code = CASE WHEN j.cancel_requested THEN j.error_code
			                      WHEN NOT j.repeatable THEN 'LEASE_EXPIRED:NOT_REPEATABLE'
			                      WHEN j.attempts >= j.max_attempts THEN 'LEASE_EXPIRED:MAX_ATTEMPTS'
			                      ELSE 'LEASE_EXPIRED:WORKER_LOST' END,
			    error_detail = 'Worker ' || coalesce(j.worker_id, '?') || ' stopped renewing its lease, which expired at '
			                   || to_char(j.lease_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
			    finished_at = CASE WHEN j.cancel_requested OR NOT j.repeatable OR j.attempts >= j.max_attempts
			                       THEN :now::timestamptz END,
			    run_at = :now, lease_until = NULL
			"""
		.strip();

	/**
	 * Takes back expired runs, skipping rows another process is recovering (or a worker
	 * is renewing) right now. Final when the job must not run twice or has no attempts
	 * left; SET expressions see the old row.
	 */
	static final String RECOVER_EXPIRED = """
			WITH expired AS (
			    SELECT id FROM {jobs} WHERE status = 'running' AND lease_until < :now
			    ORDER BY lease_until LIMIT :limit
			    FOR UPDATE SKIP LOCKED
			)
			UPDATE {jobs} j
			%s
			WHERE j.id = ANY(ARRAY(SELECT id FROM expired)) AND j.status = 'running' AND j.lease_until < :now
			RETURNING j.id, j.runs, j.status, j.error_code, j.error_detail, %s
			""".formatted(RECOVERED, HAS_DEPENDENTS);

	/**
	 * One lease as it was seen expired: fenced on the run and the lease's end, so a
	 * renewal since wins.
	 */
	static final String RECOVER_SEEN = """
			UPDATE {jobs} j
			%s
			WHERE j.id = :job_id AND j.runs = :run AND j.lease_until = :lease_until AND j.status = 'running'
			RETURNING j.id, j.runs, j.status, j.error_code, j.error_detail, %s
			""".formatted(RECOVERED, HAS_DEPENDENTS);

	private static final String ANY_EXPIRED_LEASE = """
			SELECT 1 FROM {jobs} WHERE status = 'running' AND lease_until < :now LIMIT 1
			""";

	private static final String UPSERT_WORKER = """
			INSERT INTO {workers} (worker_id, host, pid, types, concurrency, started_at, heartbeat_at)
			VALUES (:worker_id, :host, :pid, :types::text[], :concurrency, :now, :now)
			ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, types = excluded.types,
			    concurrency = excluded.concurrency
			""";

	private static final String DELETE_WORKER = """
			DELETE FROM {workers} WHERE worker_id = :worker_id
			""";

	private final PostgresDatabase database;

	private final Tables tables;

	private final PostgresClaims claims;

	private final PostgresNotifications notifications;

	private final PostgresLinks links;

	public PostgresJobStore(PostgresDatabase database, Tables tables, PostgresNotifications notifications) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.notifications = Objects.requireNonNull(notifications, "'notifications' must not be null");
		this.claims = new PostgresClaims(tables);
		this.links = new PostgresLinks(tables, notifications);
	}

	PostgresLinks links() {
		return this.links;
	}

	public PostgresDatabase database() {
		return this.database;
	}

	public Tables tables() {
		return this.tables;
	}

	@Override
	public List<Long> enqueue(List<NewJob> jobs, Instant now, Runnable afterCommit) {
		String action = (jobs.size() == 1) ? "enqueue a '" + jobs.get(0).type() + "' job"
				: "enqueue " + jobs.size() + " jobs";
		// One job, or many without dedup keys, is one INSERT statement (with its event
		// and NOTIFY): atomic by
		// itself, so outside a caller's transaction it needs no BEGIN and COMMIT of its
		// own.
		boolean oneStatement = !LinkedJobs.anyLinked(jobs)
				&& (jobs.size() == 1 || jobs.stream().allMatch((job) -> job.dedupKey() == null));
		return this.database.writeJoiningTransaction(action, (connection) -> insertJobs(connection, jobs, now),
				(ids) -> afterCommit.run(), oneStatement);
	}

	List<Long> insertJobs(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		if (LinkedJobs.anyLinked(jobs)) {
			if (jobs.size() > 1 && jobs.stream().anyMatch((job) -> job.dedupKey() != null)) {
				// enqueueAll mixing jobs that wait with jobs that have a dedup key (those
				// never wait): each goes in its own way, in order.
				List<Long> ids = new ArrayList<>(jobs.size());
				for (NewJob job : jobs) {
					ids.addAll(insertJobs(connection, List.of(job), now));
				}
				return ids;
			}
			return this.links.insert(connection, jobs, now);
		}
		if (jobs.size() > 1 && jobs.stream().allMatch((job) -> job.dedupKey() == null)) {
			return insertJobsWithoutDedupKeys(connection, jobs, now);
		}
		List<Long> ids = new ArrayList<>(jobs.size());
		try (SqlStatement insert = sql(INSERT_JOB).prepare(connection)) {
			for (NewJob job : jobs) {
				insert.bind("type", job.type())
					.bind("priority", job.priority())
					.bind("payload", job.payload())
					.bind("dedup_key", job.dedupKey())
					.bind("max_attempts", job.maxAttempts())
					.bind("run_at", job.runAt())
					.bind("now", now)
					// The column keeps its first schema's name; it holds the stored
					// propagation headers.
					.bind("trace_parent", job.traceContext());
				notification(insert, PostgresNotifications.ENQUEUED);
				Long id = null;
				try (ResultSet rows = insert.executeQuery()) {
					if (rows.next()) {
						id = rows.getLong(1);
					}
				}
				ids.add((id != null) ? id : existingByDedupKey(connection, job.dedupKey()));
			}
		}
		return ids;
	}

	private List<Long> insertJobsWithoutDedupKeys(Connection connection, List<NewJob> jobs, Instant now)
			throws SQLException {
		int size = jobs.size();
		String[] types = new String[size];
		Integer[] priorities = new Integer[size];
		String[] payloads = new String[size];
		Integer[] maxAttempts = new Integer[size];
		String[] runAts = new String[size];
		String[] traceParents = new String[size];
		for (int i = 0; i < size; i++) {
			NewJob job = jobs.get(i);
			types[i] = job.type();
			priorities[i] = job.priority();
			payloads[i] = job.payload();
			maxAttempts[i] = job.maxAttempts();
			runAts[i] = PostgresDialect.timestamp(job.runAt()).toString();
			traceParents[i] = job.traceContext();
		}
		try (SqlStatement insert = sql(INSERT_JOBS).prepare(connection)) {
			insert.bindArray("types", "text", types)
				.bindArray("priorities", "int4", priorities)
				.bindArray("payloads", "text", payloads)
				.bindArray("max_attempts", "int4", maxAttempts)
				.bindArray("run_ats", "text", runAts)
				.bindArray("trace_parents", "text", traceParents)
				.bind("now", now);
			notification(insert, PostgresNotifications.ENQUEUED);
			List<Long> ids = new ArrayList<>(size);
			try (ResultSet rows = insert.executeQuery()) {
				while (rows.next()) {
					ids.add(rows.getLong(1));
				}
			}
			return ids;
		}
	}

	private long existingByDedupKey(Connection connection, String dedupKey) throws SQLException {
		try (SqlStatement select = sql(FIND_UNFINISHED_BY_DEDUP_KEY).prepare(connection)) {
			select.bind("dedup_key", dedupKey);
			try (ResultSet rows = select.executeQuery()) {
				if (rows.next()) {
					return rows.getLong(1);
				}
			}
		}
		// The job holding the key finished between the insert and this read: the caller
		// may enqueue again.
		throw new SQLException("A job insert was ignored but no unfinished job has its dedup key '" + dedupKey
				+ "' any more (it finished meanwhile); enqueue it again", "40001");
	}

	void notification(SqlStatement statement, String kind) throws SQLException {
		statement.bind("channel", PostgresNotifications.channel(this.tables))
			.bind("message", this.notifications.message(kind));
	}

	@Override
	public List<ClaimedJob> claim(ClaimRequest request, Instant now) {
		if (request.isEmpty()) {
			return List.of();
		}
		return this.database.write("claim jobs", (connection) -> this.claims.claim(connection, request, now));
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
		int[] turnedPending = new int[1];
		CompleteAndClaim result = this.database
			.write("record the outcome of " + completions.size() + " job(s) and claim jobs", (connection) -> {
				boolean[] applied = writeCompletions(connection, completions, workerId, now, turnedPending);
				return new CompleteAndClaim(applied, this.claims.claim(connection, request, now));
			});
		wakeUpIf(turnedPending);
		return result;
	}

	@Override
	public boolean[] complete(List<Completion> completions, String workerId, Instant now) {
		if (completions.isEmpty()) {
			return new boolean[0];
		}
		int[] turnedPending = new int[1];
		boolean[] applied = this.database.write("record the outcome of " + completions.size() + " job(s)",
				(connection) -> writeCompletions(connection, completions, workerId, now, turnedPending));
		wakeUpIf(turnedPending);
		return applied;
	}

	/**
	 * Jobs that turned pending when a job they waited for finished: this process's worker
	 * hears of them at once (other processes by the notification the settle sent).
	 */
	private void wakeUpIf(int[] turnedPending) {
		if (turnedPending[0] > 0) {
			this.notifications.localJobsEnqueued();
		}
	}

	/**
	 * Writes the outcomes, then the continuations of applied successes, then settles the
	 * jobs waiting for the jobs that finished, all in the caller's transaction.
	 */
	private boolean[] writeCompletions(Connection connection, List<Completion> completions, String workerId,
			Instant now, int[] turnedPending) throws SQLException {
		boolean[] applied = new boolean[completions.size()];
		Map<Long, String> finishedWithDependents = new LinkedHashMap<>();
		List<Integer> successes = new ArrayList<>();
		List<Integer> others = new ArrayList<>();
		for (int i = 0; i < completions.size(); i++) {
			(completions.get(i).kind() == Completion.Kind.SUCCEEDED ? successes : others).add(i);
		}
		if (!successes.isEmpty()) {
			markSucceeded(connection, completions, successes, applied, workerId, now, finishedWithDependents);
		}
		if (!others.isEmpty()) {
			try (SqlStatement attempt = sql(FINISH_ATTEMPT).prepare(connection);
					SqlStatement event = sql(INSERT_EVENT).prepare(connection)) {
				for (int i : others) {
					Completion completion = completions.get(i);
					String status = markOther(connection, completion, now, finishedWithDependents);
					applied[i] = status != null;
					if (applied[i]) {
						recordOutcome(attempt, event, completion, status, workerId, now);
					}
				}
				attempt.executeBatch();
				event.executeBatch();
			}
		}
		for (int i : successes) {
			Completion completion = completions.get(i);
			if (applied[i] && !completion.next().isEmpty()) {
				this.links.continueChain(connection, completion, workerId, now);
			}
		}
		if (!finishedWithDependents.isEmpty()) {
			turnedPending[0] += this.links.settle(connection, finishedWithDependents, workerId, now);
		}
		return applied;
	}

	private void markSucceeded(Connection connection, List<Completion> completions, List<Integer> successes,
			boolean[] applied, String workerId, Instant now, Map<Long, String> finishedWithDependents)
			throws SQLException {
		Long[] ids = new Long[successes.size()];
		Integer[] runs = new Integer[successes.size()];
		String[] results = new String[successes.size()];
		for (int k = 0; k < successes.size(); k++) {
			Completion completion = completions.get(successes.get(k));
			ids[k] = completion.jobId();
			runs[k] = completion.run();
			results[k] = completion.result();
		}
		Set<Long> done = new HashSet<>();
		try (SqlStatement succeed = sql(MARK_SUCCEEDED).prepare(connection)) {
			succeed.bindArray("ids", "int8", ids)
				.bindArray("runs", "int4", runs)
				.bindArray("results", "text", results)
				.bind("now", now)
				.bind("worker_id", workerId);
			try (ResultSet rows = succeed.executeQuery()) {
				while (rows.next()) {
					done.add(rows.getLong(1));
					if (rows.getBoolean(2)) {
						finishedWithDependents.put(rows.getLong(1), "succeeded");
					}
				}
			}
		}
		for (int i : successes) {
			applied[i] = done.contains(completions.get(i).jobId());
		}
	}

	/**
	 * @return the job's new status, or {@code null} if the run no longer holds the job
	 */
	private String markOther(Connection connection, Completion completion, Instant now,
			Map<Long, String> finishedWithDependents) throws SQLException {
		SqlStatement mark = switch (completion.kind()) {
			case FAILED -> sql(MARK_FAILED).prepare(connection)
				.bind("error_code", completion.errorCode())
				.bind("error_detail", completion.errorDetail());
			case CANCELLED -> sql(MARK_CANCELLED).prepare(connection);
			default -> sql(MARK_PENDING_AGAIN).prepare(connection)
				.bind("next_run_at", completion.nextRunAt())
				.bind("error_code", completion.errorCode())
				.bind("error_detail",
						(completion.kind() == Completion.Kind.HANDED_BACK) ? null : completion.errorDetail())
				.bind("gives_back", (completion.kind() != Completion.Kind.RETRY) ? 1 : 0)
				.bind("snoozed", (completion.kind() == Completion.Kind.SNOOZED) ? 1 : 0);
		};
		try (mark) {
			mark.bind("now", now).bind("job_id", completion.jobId()).bind("run", completion.run());
			try (ResultSet rows = mark.executeQuery()) {
				if (!rows.next()) {
					return null;
				}
				String status = rows.getString(1);
				if (!"pending".equals(status) && rows.getBoolean(2)) {
					finishedWithDependents.put(completion.jobId(), status);
				}
				return status;
			}
		}
	}

	private static void recordOutcome(SqlStatement attempt, SqlStatement event, Completion completion, String status,
			String workerId, Instant now) throws SQLException {
		String outcome = switch (completion.kind()) {
			case SUCCEEDED -> "SUCCEEDED";
			case RETRY, FAILED -> "FAILED";
			case SNOOZED -> "SNOOZED";
			case CANCELLED -> "CANCELLED";
			case HANDED_BACK -> "HANDED_BACK";
		};
		attempt.bind("now", now)
			.bind("outcome", outcome)
			.bind("error_code", completion.errorCode())
			.bind("error_detail", completion.errorDetail())
			.bind("error_trace", completion.errorTrace())
			.bind("job_id", completion.jobId())
			.bind("run", completion.run())
			.addBatch();
		if ("cancelled".equals(status)) {
			addEvent(event, completion.jobId(), now, "CANCELLED", workerId, null);
			return;
		}
		switch (completion.kind()) {
			case SUCCEEDED -> addEvent(event, completion.jobId(), now, "SUCCEEDED", workerId, null);
			case FAILED -> addEvent(event, completion.jobId(), now, "FAILED", workerId, completion.errorCode());
			case RETRY -> addEvent(event, completion.jobId(), now, "RETRY_SCHEDULED", workerId,
					completion.errorCode() + " retry at " + completion.nextRunAt());
			case SNOOZED ->
				addEvent(event, completion.jobId(), now, "SNOOZED", workerId, "until " + completion.nextRunAt());
			case CANCELLED -> addEvent(event, completion.jobId(), now, "CANCELLED", workerId, null);
			// A hand-back's detail (claimed ahead, never started) says more than the
			// default.
			case HANDED_BACK ->
				addEvent(event, completion.jobId(), now, "HANDED_BACK", workerId, (completion.errorDetail() != null)
						? completion.errorDetail() : "worker stopped before the run ended");
		}
	}

	/**
	 * A count of the notifications this process received from other processes: it changes
	 * when another process enqueued (or cancelled), without a query. {@code null} while
	 * notifications are unavailable, so the worker polls at its interval.
	 */
	@Override
	public Object changeToken() {
		return this.notifications.changeToken();
	}

	@Override
	public LeaseRenewal renewLeases(String workerId, Collection<RunningJobRef> runs, Instant now, Instant leaseUntil) {
		if (runs.isEmpty()) {
			return LeaseRenewal.NONE;
		}
		Long[] ids = new Long[runs.size()];
		Integer[] runNumbers = new Integer[runs.size()];
		Boolean[] waiting = new Boolean[runs.size()];
		int k = 0;
		for (RunningJobRef run : runs) {
			ids[k] = run.jobId();
			waiting[k] = run.waiting();
			runNumbers[k++] = run.run();
		}
		return this.database.write("renew the leases of " + runs.size() + " running job(s)", (connection) -> {
			Set<Long> cancelRequested = new HashSet<>();
			Set<Long> lost = new HashSet<>();
			for (RunningJobRef run : runs) {
				lost.add(run.jobId());
			}
			try (SqlStatement renew = sql(RENEW_LEASES).prepare(connection)) {
				renew.bind("lease_until", leaseUntil)
					.bindArray("ids", "int8", ids)
					.bindArray("runs", "int4", runNumbers)
					.bindArray("waiting", "bool", waiting)
					.bind("now", now)
					.bind("worker_id", workerId);
				try (ResultSet rows = renew.executeQuery()) {
					while (rows.next()) {
						lost.remove(rows.getLong(1));
						if (rows.getBoolean(2)) {
							cancelRequested.add(rows.getLong(1));
						}
					}
				}
			}
			return new LeaseRenewal(cancelRequested, lost);
		});
	}

	@Override
	public int recoverExpiredLeases(Instant now, int limit) {
		boolean any = this.database.read("look for expired leases", (connection) -> {
			try (SqlStatement select = sql(ANY_EXPIRED_LEASE).prepare(connection)) {
				select.bind("now", now);
				try (ResultSet rows = select.executeQuery()) {
					return rows.next();
				}
			}
		});
		if (!any) {
			return 0;
		}
		int[] turnedPending = new int[1];
		int recovered = this.database.write("recover jobs with expired leases", (connection) -> {
			Map<Long, String> finishedWithDependents = new LinkedHashMap<>();
			int count;
			try (SqlStatement recover = sql(RECOVER_EXPIRED).prepare(connection);
					SqlStatement attempt = sql(FINISH_ATTEMPT).prepare(connection);
					SqlStatement event = sql(INSERT_EVENT).prepare(connection)) {
				recover.bind("now", now).bind("limit", limit);
				count = recordRecovered(recover, attempt, event, now, finishedWithDependents);
				attempt.executeBatch();
				event.executeBatch();
			}
			turnedPending[0] = settle(connection, finishedWithDependents, now);
			return count;
		});
		wakeUpIf(turnedPending);
		return recovered;
	}

	@Override
	public List<ExpiredLease> findExpiredLeases(Instant now, int limit) {
		return this.database.read("look for expired leases", (connection) -> {
			List<ExpiredLease> expired = new ArrayList<>();
			try (SqlStatement select = sql(FIND_EXPIRED).prepare(connection)) {
				select.bind("now", now).bind("limit", limit);
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						expired.add(new ExpiredLease(rows.getLong(1), rows.getInt(2),
								PostgresDialect.INSTANCE.instant(rows, 3)));
					}
				}
			}
			return expired;
		});
	}

	@Override
	public int recoverExpiredLeases(Collection<ExpiredLease> leases, Instant now) {
		if (leases.isEmpty()) {
			return 0;
		}
		int[] turnedPending = new int[1];
		int count = this.database.write("recover jobs with expired leases", (connection) -> {
			int recovered = 0;
			Map<Long, String> finishedWithDependents = new LinkedHashMap<>();
			try (SqlStatement recover = sql(RECOVER_SEEN).prepare(connection);
					SqlStatement attempt = sql(FINISH_ATTEMPT).prepare(connection);
					SqlStatement event = sql(INSERT_EVENT).prepare(connection)) {
				for (ExpiredLease lease : leases) {
					recover.bind("now", now)
						.bind("job_id", lease.jobId())
						.bind("run", lease.run())
						.bind("lease_until", lease.leaseUntil());
					recovered += recordRecovered(recover, attempt, event, now, finishedWithDependents);
				}
				attempt.executeBatch();
				event.executeBatch();
			}
			turnedPending[0] = settle(connection, finishedWithDependents, now);
			return recovered;
		});
		wakeUpIf(turnedPending);
		return count;
	}

	@Override
	public LeaseRenewal heartbeat(String workerId, RunningJobRef run, Instant now, Instant leaseUntil) {
		return this.database.write("record the heartbeat of job " + run.jobId(), (connection) -> {
			try (SqlStatement beat = sql(HEARTBEAT).prepare(connection)) {
				beat.bind("now", now)
					.bind("lease_until", leaseUntil)
					.bind("job_id", run.jobId())
					.bind("run", run.run())
					.bind("worker_id", workerId);
				try (ResultSet rows = beat.executeQuery()) {
					if (!rows.next()) {
						return new LeaseRenewal(Set.of(), Set.of(run.jobId()));
					}
					return new LeaseRenewal(rows.getBoolean(1) ? Set.of(run.jobId()) : Set.of(), Set.of());
				}
			}
		});
	}

	@Override
	public void recordProgress(RunningJobRef run, JobProgress progress) {
		this.database.write("record the progress of job " + run.jobId(), (connection) -> {
			try (SqlStatement update = sql(RECORD_PROGRESS).prepare(connection)) {
				return update.bind("done", progress.done())
					.bind("total", progress.total())
					.bind("message", progress.message())
					.bind("now", progress.at())
					.bind("job_id", run.jobId())
					.bind("run", run.run())
					.executeUpdate();
			}
		});
	}

	/**
	 * Runs a recovery statement and adds the attempt ends and events of the jobs it took
	 * back.
	 */
	private static int recordRecovered(SqlStatement recover, SqlStatement attempt, SqlStatement event, Instant now,
			Map<Long, String> finishedWithDependents) throws SQLException {
		int recovered = 0;
		try (ResultSet rows = recover.executeQuery()) {
			while (rows.next()) {
				recovered++;
				long id = rows.getLong(1);
				String status = rows.getString(3);
				String detail = rows.getString(5);
				if (!"pending".equals(status) && rows.getBoolean(6)) {
					finishedWithDependents.put(id, status);
				}
				attempt.bind("now", now)
					.bind("outcome", "LEASE_EXPIRED")
					.bind("error_code", "LEASE_EXPIRED:WORKER_LOST")
					.bind("error_detail", detail)
					.bind("error_trace", (String) null)
					.bind("job_id", id)
					.bind("run", rows.getInt(2))
					.addBatch();
				String eventName = switch (status) {
					case "pending" -> "RECOVERED";
					case "cancelled" -> "CANCELLED";
					default -> "FAILED";
				};
				addEvent(event, id, now, eventName, "recovery", rows.getString(4) + ": " + detail);
			}
		}
		return recovered;
	}

	private int settle(Connection connection, Map<Long, String> finishedWithDependents, Instant now)
			throws SQLException {
		return finishedWithDependents.isEmpty() ? 0
				: this.links.settle(connection, finishedWithDependents, "recovery", now);
	}

	@Override
	public void recordEvent(long jobId, String event, String actor, String detail, Instant now) {
		this.database.write("record event " + event + " of job " + jobId, (connection) -> {
			try (SqlStatement insert = sql(INSERT_EVENT).prepare(connection)) {
				addEvent(insert, jobId, now, event, actor, detail);
				return insert.executeBatch().length;
			}
		});
	}

	@Override
	public void registerWorker(WorkerInfo worker, Instant now) {
		this.database.write("register worker " + worker.workerId(), (connection) -> {
			try (SqlStatement upsert = sql(UPSERT_WORKER).prepare(connection)) {
				return upsert.bind("worker_id", worker.workerId())
					.bind("host", worker.host())
					.bind("pid", worker.pid())
					.bindTexts("types", new java.util.TreeSet<>(worker.types()))
					.bind("concurrency", worker.concurrency())
					.bind("now", now)
					.executeUpdate();
			}
		});
	}

	@Override
	public void unregisterWorker(String workerId) {
		this.database.write("unregister worker " + workerId, (connection) -> {
			try (SqlStatement delete = sql(DELETE_WORKER).prepare(connection)) {
				return delete.bind("worker_id", workerId).executeUpdate();
			}
		});
	}

	static void addEvent(SqlStatement event, long jobId, Instant at, String name, String actor, String detail)
			throws SQLException {
		event.bind("job_id", jobId)
			.bind("at", at)
			.bind("event", name)
			.bind("actor", actor)
			.bind("detail", detail)
			.addBatch();
	}

	private Sql sql(String template) {
		return this.tables.sql(template);
	}

}
