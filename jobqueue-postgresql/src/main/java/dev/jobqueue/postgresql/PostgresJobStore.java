package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.LinkedJobs;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.jdbc.JdbcJobStore;
import dev.jobqueue.jdbc.JdbcLeaseRecovery;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JobStore} on PostgreSQL: the shared {@link JdbcJobStore} with PostgreSQL's
 * parts: {@link PostgresJobInserts} (enqueue with a notification), {@link PostgresClaims}
 * ({@code FOR UPDATE SKIP LOCKED}), {@link PostgresCompletions} (outcome statements),
 * {@link PostgresLinks} (chains), leases renewed and expired runs taken back in one
 * statement each, and the notifications this process received as the change token
 * ({@link PostgresNotifications}). Enqueues and cancels of running jobs send a
 * notification in their transaction, which PostgreSQL delivers to the other processes on
 * commit.
 */
public final class PostgresJobStore extends JdbcJobStore {

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
			RETURNING j.id, j.runs, j.status, j.error_code, j.error_detail, %s, j.type
			""".formatted(RECOVERED, PostgresCompletions.HAS_DEPENDENTS);

	/**
	 * One lease as it was seen expired: fenced on the run and the lease's end, so a
	 * renewal since wins.
	 */
	static final String RECOVER_SEEN = """
			UPDATE {jobs} j
			%s
			WHERE j.id = :job_id AND j.runs = :run AND j.lease_until = :lease_until AND j.status = 'running'
			RETURNING j.id, j.runs, j.status, j.error_code, j.error_detail, %s, j.type
			""".formatted(RECOVERED, PostgresCompletions.HAS_DEPENDENTS);

	private static final JdbcLeaseRecovery.Statements STATEMENTS = new JdbcLeaseRecovery.Statements(RECOVER_EXPIRED,
			RECOVER_SEEN, JdbcLeaseRecovery.FIND_EXPIRED);

	private final PostgresDatabase database;

	private final PostgresNotifications notifications;

	private final PostgresLinks links;

	private final Sql renewLeases;

	public PostgresJobStore(PostgresDatabase database, Tables tables, PostgresNotifications notifications) {
		this(database, tables, Objects.requireNonNull(notifications, "'notifications' must not be null"),
				new JobEvents(tables));
	}

	private PostgresJobStore(PostgresDatabase database, Tables tables, PostgresNotifications notifications,
			JobEvents events) {
		this(database, tables, notifications, events, new PostgresLinks(tables, events, notifications));
	}

	private PostgresJobStore(PostgresDatabase database, Tables tables, PostgresNotifications notifications,
			JobEvents events, PostgresLinks links) {
		super(database, tables, events, new PostgresClaims(tables),
				new PostgresJobInserts(tables, links, notifications), PostgresCompletions.create(tables, events, links),
				JdbcLeaseRecovery.of(STATEMENTS));
		this.database = database;
		this.notifications = notifications;
		this.links = links;
		this.renewLeases = tables.sql(RENEW_LEASES);
	}

	PostgresLinks links() {
		return this.links;
	}

	@Override
	public PostgresDatabase database() {
		return this.database;
	}

	/**
	 * One job, or many without dedup keys, is one INSERT statement (with its event and
	 * NOTIFY): atomic by itself, so outside a caller's transaction it needs no BEGIN and
	 * COMMIT of its own.
	 */
	@Override
	protected boolean isOneStatement(List<NewJob> jobs) {
		return !LinkedJobs.anyLinked(jobs)
				&& (jobs.size() == 1 || jobs.stream().allMatch((job) -> job.dedupKey() == null));
	}

	/** Binds the channel and this process's message of {@code kind} to a NOTIFY. */
	void notification(SqlStatement statement, String kind) throws SQLException {
		statement.bind("channel", PostgresNotifications.channel(tables()))
			.bind("message", this.notifications.message(kind));
	}

	/**
	 * Jobs that turned pending when a job they waited for finished: this process's worker
	 * hears of them at once (other processes by the notification the settle sent).
	 */
	@Override
	protected void jobsTurnedPending(int count) {
		if (count > 0) {
			this.notifications.localJobsEnqueued();
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
	protected LeaseRenewal renewLeases(Connection connection, String workerId, Collection<RunningJobRef> runs,
			Instant now, Instant leaseUntil) throws SQLException {
		Long[] ids = new Long[runs.size()];
		Integer[] runNumbers = new Integer[runs.size()];
		Boolean[] waiting = new Boolean[runs.size()];
		int k = 0;
		for (RunningJobRef run : runs) {
			ids[k] = run.jobId();
			waiting[k] = run.waiting();
			runNumbers[k++] = run.run();
		}
		try (SqlStatement renew = this.renewLeases.prepare(connection)) {
			renew.bind("lease_until", leaseUntil)
				.bindArray("ids", "int8", ids)
				.bindArray("runs", "int4", runNumbers)
				.bindArray("waiting", "bool", waiting)
				.bind("now", now)
				.bind("worker_id", workerId);
			try (ResultSet rows = renew.executeQuery()) {
				return renewal(runs, rows);
			}
		}
	}

	/** Adds an event to the batch of {@code event} (see {@link JobEvents#add}). */
	static void addEvent(SqlStatement event, long jobId, Instant at, String name, String actor, String detail)
			throws SQLException {
		JobEvents.add(event, jobId, at, name, actor, detail);
	}

}
