package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import dev.jobqueue.JobStep;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.CompleteAndClaim;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.ExpiredLease;
import dev.jobqueue.core.store.JobProgress;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.core.store.WorkerInfo;

/**
 * The {@link JobStore} on any JDBC database: the hot path of enqueuing and working, each
 * method one transaction of the {@link JdbcDatabase}. What every database does alike is
 * here: enqueue through the store's {@link JobInserts}, outcomes through
 * {@link JdbcCompletions}, the handler's heartbeat and progress, lease recovery through
 * {@link JdbcLeaseRecovery}, the worker registry through {@link JdbcWorkers}. A store
 * gives its claims ({@link Claims}), its lease renewal, its change token and its lease
 * recovery's statements ({@link JdbcLeaseRecovery.Statements}).
 */
public abstract class JdbcJobStore implements JobStore {

	/**
	 * A handler's heartbeat: it is alive (what "stuck" is measured on), and its lease is
	 * extended.
	 */
	public static final String HEARTBEAT = """
			UPDATE {jobs} SET heartbeat_at = :now, lease_until = :lease_until
			WHERE id = :job_id AND runs = :run AND status = 'running' AND worker_id = :worker_id
			RETURNING cancel_requested
			""";

	/**
	 * A run's progress, fenced on the run like every write of it. Progress is proof of
	 * the handler's life too: it moves the heartbeat, not the lease.
	 */
	public static final String RECORD_PROGRESS = """
			UPDATE {jobs} SET progress_done = :done, progress_total = :total, progress_message = :message,
			    progress_at = :now, heartbeat_at = :now
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

	/**
	 * A rate-limited job's handler begins: its claim wrote one row per limit in the log
	 * of starts (the type's, {@code job_key} '', and its key's), dated at the claim's
	 * lease end so that it counts in every window until then; now they say when the
	 * handler began. This run's rows are those dated after its claim and no later than
	 * its lease end: a start of an earlier run of the job is older, another worker's
	 * later claim of it (after this one's lease was lost) ends its lease later. An index
	 * range of the log's primary key per limit.
	 */
	public static final String RECORD_HANDLER_START = """
			UPDATE {rate_starts} SET started_at = :now
			WHERE type = :type AND job_key IN ('', :key) AND started_at > :claimed_at
			  AND started_at <= :lease_until AND job_id = :job_id
			""";

	/**
	 * A rate-limited job's run ends before its handler began: the rows its claim wrote
	 * (see {@link #RECORD_HANDLER_START}) go, freeing their permits.
	 */
	public static final String DROP_UNSTARTED_START = """
			DELETE FROM {rate_starts}
			WHERE type = :type AND job_key IN ('', :key) AND started_at > :claimed_at
			  AND started_at <= :lease_until AND job_id = :job_id
			""";

	private final JdbcDatabase database;

	private final Tables tables;

	private final JobEvents events;

	private final Claims claims;

	private final JobInserts inserts;

	private final JdbcCompletions completions;

	private final Sql heartbeat;

	private final Sql recordProgress;

	private final Sql recordHandlerStart;

	private final Sql dropUnstartedStart;

	private final JdbcSteps steps;

	private final JdbcWorkers workers;

	private final JdbcLeaseRecovery recovery;

	/**
	 * @param recovery makes the store's lease recovery on these parts (for most stores
	 * {@link JdbcLeaseRecovery#of} its statements)
	 */
	protected JdbcJobStore(JdbcDatabase database, Tables tables, JobEvents events, Claims claims, JobInserts inserts,
			JdbcCompletions completions, JdbcLeaseRecovery.Factory recovery) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.events = Objects.requireNonNull(events, "'events' must not be null");
		this.claims = Objects.requireNonNull(claims, "'claims' must not be null");
		this.inserts = Objects.requireNonNull(inserts, "'inserts' must not be null");
		this.completions = Objects.requireNonNull(completions, "'completions' must not be null");
		this.heartbeat = tables.sql(HEARTBEAT);
		this.recordProgress = tables.sql(RECORD_PROGRESS);
		this.recordHandlerStart = tables.sql(RECORD_HANDLER_START);
		this.dropUnstartedStart = tables.sql(DROP_UNSTARTED_START);
		this.steps = new JdbcSteps(tables);
		this.workers = new JdbcWorkers(database, tables);
		this.recovery = recovery.create(database, tables, events, completions);
	}

	public JdbcDatabase database() {
		return this.database;
	}

	public Tables tables() {
		return this.tables;
	}

	/** The statement of the job timeline, shared by the store's parts. */
	public JobEvents events() {
		return this.events;
	}

	/** Outcomes and the settles of the jobs waiting for finished jobs. */
	public JdbcCompletions completions() {
		return this.completions;
	}

	/**
	 * Has the store's next claim by rounds across keys run {@code hook} on its connection
	 * between reading what it takes and taking it, as if another transaction committed
	 * then; for tests.
	 */
	public void beforeNextTake(FlowClaims.BeforeTake hook) {
		this.claims.beforeNextTake(hook);
	}

	/** What an enqueue of {@code jobs} is called in messages. */
	protected static String enqueueAction(List<NewJob> jobs) {
		return (jobs.size() == 1) ? "enqueue a '" + jobs.get(0).type() + "' job" : "enqueue " + jobs.size() + " jobs";
	}

	@Override
	public List<Long> enqueue(List<NewJob> jobs, Instant now, Runnable afterCommit) {
		return this.database.writeJoiningTransaction(enqueueAction(jobs),
				(connection) -> insertJobs(connection, jobs, now), (ids) -> afterCommit.run(), isOneStatement(jobs));
	}

	/**
	 * Whether enqueuing {@code jobs} is one statement, atomic by itself, so that outside
	 * a caller's transaction it may run without a transaction of its own; by default no.
	 */
	protected boolean isOneStatement(List<NewJob> jobs) {
		return false;
	}

	/**
	 * Inserts jobs in the caller's transaction, for enqueues and the schedule store's
	 * ticks.
	 * @return the ids in request order; a job whose dedup key matches an unfinished job
	 * yields that job's id
	 */
	public List<Long> insertJobs(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		return this.inserts.insert(connection, jobs, now);
	}

	@Override
	public List<ClaimedJob> claim(ClaimRequest request, Instant now) {
		if (request.isEmpty()) {
			return List.of();
		}
		return claimAndTell(request, now).jobs();
	}

	/**
	 * A claim in its own transaction, with when a job a rate limit held back may start.
	 */
	private Claims.Claimed claimAndTell(ClaimRequest request, Instant now) {
		if (request.isEmpty()) {
			return Claims.Claimed.NONE;
		}
		return this.database.write("claim jobs", (connection) -> this.claims.claim(connection, request, now));
	}

	@Override
	public boolean[] complete(List<Completion> completions, String workerId, Instant now) {
		if (completions.isEmpty()) {
			return new boolean[0];
		}
		JdbcCompletions.Written written = this.database.write("record the outcome of " + completions.size() + " job(s)",
				(connection) -> this.completions.write(connection, completions, workerId, now));
		jobsTurnedPending(written.turnedPending());
		return written.applied();
	}

	@Override
	public CompleteAndClaim completeAndClaim(List<Completion> completions, String workerId, ClaimRequest request,
			Instant now) {
		if (completions.isEmpty()) {
			Claims.Claimed claimed = claimAndTell(request, now);
			return new CompleteAndClaim(new boolean[0], claimed.jobs(), claimed.throttledUntil());
		}
		if (request.isEmpty()) {
			return new CompleteAndClaim(complete(completions, workerId, now), List.of());
		}
		int[] turnedPending = new int[1];
		CompleteAndClaim result = this.database
			.write("record the outcome of " + completions.size() + " job(s) and claim jobs", (connection) -> {
				JdbcCompletions.Written written = this.completions.write(connection, completions, workerId, now);
				turnedPending[0] = written.turnedPending();
				Claims.Claimed claimed = this.claims.claim(connection, request, now);
				return new CompleteAndClaim(written.applied(), claimed.jobs(), claimed.throttledUntil());
			});
		jobsTurnedPending(turnedPending[0]);
		return result;
	}

	/**
	 * Called after a commit in which {@code count} waiting jobs turned pending because
	 * jobs they waited for finished; nothing by default (a store whose worker does not
	 * see its own process's commits wakes it here).
	 */
	protected void jobsTurnedPending(int count) {
	}

	@Override
	public LeaseRenewal renewLeases(String workerId, Collection<RunningJobRef> runs, Instant now, Instant leaseUntil) {
		if (runs.isEmpty()) {
			return LeaseRenewal.NONE;
		}
		return this.database.write("renew the leases of " + runs.size() + " running job(s)",
				(connection) -> renewLeases(connection, workerId, runs, now, leaseUntil));
	}

	/**
	 * Renews the leases of a worker's runs in the caller's transaction: the lease, and
	 * {@code heartbeat_at} only of runs waiting for a slot (no handler yet); a started
	 * job's heartbeat is its handler's own ({@link #HEARTBEAT}), so a hung handler shows
	 * as stuck. Fenced on the run, the status and the worker.
	 * @return the runs lost and those whose cancel was requested
	 */
	protected abstract LeaseRenewal renewLeases(Connection connection, String workerId, Collection<RunningJobRef> runs,
			Instant now, Instant leaseUntil) throws SQLException;

	/**
	 * The renewal of {@code runs} from what a renewal statement returned, a row per run
	 * it renewed (job id, whether a cancel was requested): a run without a row is lost.
	 */
	protected static LeaseRenewal renewal(Collection<RunningJobRef> runs, ResultSet renewed) throws SQLException {
		Set<Long> lost = new HashSet<>();
		runs.forEach((run) -> lost.add(run.jobId()));
		Set<Long> cancelRequested = new HashSet<>();
		while (renewed.next()) {
			lost.remove(renewed.getLong(1));
			if (renewed.getBoolean(2)) {
				cancelRequested.add(renewed.getLong(1));
			}
		}
		return new LeaseRenewal(cancelRequested, lost);
	}

	@Override
	public LeaseRenewal heartbeat(String workerId, RunningJobRef run, Instant now, Instant leaseUntil) {
		return this.database.write("record the heartbeat of job " + run.jobId(),
				(connection) -> heartbeat(connection, workerId, run, now, leaseUntil));
	}

	/**
	 * A handler's heartbeat in the caller's transaction ({@link #HEARTBEAT}); a store
	 * whose UPDATE returns no rows writes it its own way.
	 * @return the run as lost when it no longer holds the job, or with its cancel
	 * requested
	 */
	protected LeaseRenewal heartbeat(Connection connection, String workerId, RunningJobRef run, Instant now,
			Instant leaseUntil) throws SQLException {
		try (SqlStatement beat = this.heartbeat.prepare(connection)) {
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
	}

	@Override
	public void recordHandlerStart(ClaimedJob job, Instant claimedAt, Instant leaseUntil, InstantSource clock) {
		this.database.write("record the start of job " + job.id() + " in its rate limit's log", (connection) -> {
			try (SqlStatement update = this.recordHandlerStart.prepare(connection)) {
				bindRunsStarts(update, job, claimedAt, leaseUntil);
				// Read once the write may proceed: the handler begins just after it.
				return update.bind("now", clock.instant()).executeUpdate();
			}
		});
	}

	@Override
	public void dropUnstartedStart(ClaimedJob job, Instant claimedAt, Instant leaseUntil) {
		this.database.write("free the rate permit of job " + job.id() + ", which did not start", (connection) -> {
			try (SqlStatement delete = this.dropUnstartedStart.prepare(connection)) {
				return bindRunsStarts(delete, job, claimedAt, leaseUntil).executeUpdate();
			}
		});
	}

	private static SqlStatement bindRunsStarts(SqlStatement statement, ClaimedJob job, Instant claimedAt,
			Instant leaseUntil) throws SQLException {
		return statement.bind("type", job.type())
			.bind("key", (job.key() != null) ? job.key() : FlowClaims.Start.TYPE_WIDE)
			.bind("claimed_at", claimedAt)
			.bind("lease_until", leaseUntil)
			.bind("job_id", job.id());
	}

	@Override
	public void recordProgress(RunningJobRef run, JobProgress progress) {
		this.database.write("record the progress of job " + run.jobId(), (connection) -> {
			try (SqlStatement update = this.recordProgress.prepare(connection)) {
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

	@Override
	public List<JobStep> steps(long jobId) {
		return this.database.read("read the steps of job " + jobId, (connection) -> this.steps.read(connection, jobId));
	}

	@Override
	public boolean recordStep(RunningJobRef run, JobStep step, boolean inCallerTransaction) {
		if (inCallerTransaction && !this.database.joinsCallerTransaction()) {
			throw new IllegalStateException("its transaction is not on the queue's DataSource ("
					+ this.database.location() + "), so the step's writes and its record would not commit together; "
					+ "run transactional steps with the transaction manager of the DataSource the queue shares");
		}
		return this.database.writeJoiningTransaction("record step '" + step.name() + "' of job " + run.jobId(),
				(connection) -> this.steps.record(connection, run, step), () -> {
				});
	}

	@Override
	public int recoverExpiredLeases(Instant now, int limit) {
		return recovered(this.recovery.recoverExpired(now, limit));
	}

	@Override
	public List<ExpiredLease> findExpiredLeases(Instant now, int limit) {
		return this.recovery.findExpired(now, limit);
	}

	@Override
	public int recoverExpiredLeases(Collection<ExpiredLease> leases, Instant now) {
		return recovered(this.recovery.recover(leases, now));
	}

	private int recovered(JdbcLeaseRecovery.Outcome outcome) {
		jobsTurnedPending(outcome.turnedPending());
		return outcome.recovered();
	}

	@Override
	public void recordEvent(long jobId, String event, String actor, String detail, Instant now) {
		this.database.write("record event " + event + " of job " + jobId, (connection) -> {
			try (SqlStatement insert = this.events.prepare(connection)) {
				JobEvents.add(insert, jobId, now, event, actor, detail);
				return insert.executeBatch().length;
			}
		});
	}

	@Override
	public void registerWorker(WorkerInfo worker, Instant now) {
		this.workers.register(worker, now);
	}

	@Override
	public void unregisterWorker(String workerId) {
		this.workers.unregister(workerId);
	}

}
