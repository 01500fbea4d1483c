package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.CompleteAndClaim;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.EnqueueVisibility;
import dev.jobqueue.core.store.ExpiredLease;
import dev.jobqueue.core.store.JobProgress;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.core.store.WorkerInfo;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JobStore} on SQLite: the hot path of enqueuing and working. Each method is
 * one transaction of {@link SqliteDatabase}; the statements live with what they do:
 * {@link JobInserts} (enqueue), {@link SqliteClaims} (claim), {@link SqliteCompletions}
 * (outcomes); leases, recovery and the worker registry are here. Statements are text
 * blocks with {@code :name} parameters, parsed once when the store is built;
 * {@code {jobs}}, {@code {attempts}}, {@code {events}}, {@code {workers}},
 * {@code {paused}} and {@code {p}} stand for the prefixed table and index names
 * ({@link Tables}).
 */
public final class SqliteJobStore implements JobStore {

	/**
	 * The worker's renewal: the lease, and {@code heartbeat_at} only of a job waiting for
	 * a slot (no handler yet); a started job's is its handler's own (see
	 * {@link #HEARTBEAT}).
	 */
	private static final String RENEW_LEASE = """
			UPDATE {jobs} SET lease_until = :lease_until,
			    heartbeat_at = CASE WHEN :waiting = 1 THEN :now ELSE heartbeat_at END
			WHERE id = :job_id AND runs = :run AND status = 'running' AND worker_id = :worker_id
			RETURNING cancel_requested
			""";

	/**
	 * A handler's heartbeat: it is alive (what "stuck" is measured on), and its lease is
	 * extended.
	 */
	private static final String HEARTBEAT = """
			UPDATE {jobs} SET heartbeat_at = :now, lease_until = :lease_until
			WHERE id = :job_id AND runs = :run AND status = 'running' AND worker_id = :worker_id
			RETURNING cancel_requested
			""";

	/**
	 * Progress is proof of the handler's life too: it moves the heartbeat, not the lease.
	 */
	private static final String RECORD_PROGRESS = """
			UPDATE {jobs} SET progress_done = :done, progress_total = :total, progress_message = :message,
			    progress_at = :now, heartbeat_at = :now
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

	private static final String ANY_EXPIRED_LEASE = """
			SELECT 1 FROM {jobs} WHERE status = 'running' AND lease_until < :now LIMIT 1
			""";

	/**
	 * Final when the job must not run twice or has no attempts left; SET expressions see
	 * the old row.
	 */
	private static final String RECOVERED = """
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
			    finished_at = CASE WHEN cancel_requested = 1 OR repeatable = 0 OR attempts >= max_attempts THEN :now END,
			    run_at = :now, lease_until = NULL
			""";

	private static final String RECOVERED_COLUMNS = """
			RETURNING id, runs, status, error_code, error_detail
			""";

	private static final String RECOVER_EXPIRED = RECOVERED + """
			WHERE id IN (SELECT id FROM {jobs} WHERE status = 'running' AND lease_until < :now LIMIT :limit)
			""" + RECOVERED_COLUMNS;

	/**
	 * One lease as it was seen expired: fenced on the run and the lease's end, so a
	 * renewal since wins.
	 */
	private static final String RECOVER_SEEN = RECOVERED + """
			WHERE id = :job_id AND runs = :run AND lease_until = :lease_until AND status = 'running'
			""" + RECOVERED_COLUMNS;

	private static final String FIND_EXPIRED = """
			SELECT id, runs, lease_until FROM {jobs} WHERE status = 'running' AND lease_until < :now LIMIT :limit
			""";

	private static final String UPSERT_WORKER = """
			INSERT INTO {workers} (worker_id, host, pid, types, concurrency, started_at, heartbeat_at)
			VALUES (:worker_id, :host, :pid, :types, :concurrency, :now, :now)
			ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, types = excluded.types,
			    concurrency = excluded.concurrency
			""";

	private static final String DELETE_WORKER = """
			DELETE FROM {workers} WHERE worker_id = :worker_id
			""";

	private final SqliteDatabase database;

	private final Tables tables;

	private final JobEvents events;

	private final JobInserts inserts;

	private final SqliteClaims claims;

	private final SqliteCompletions completions;

	private final WalChangeToken changeToken;

	private final Sql renewLease;

	private final Sql heartbeat;

	private final Sql recordProgress;

	private final Sql anyExpiredLease;

	private final Sql recoverExpired;

	private final Sql recoverSeen;

	private final Sql findExpired;

	private final Sql upsertWorker;

	private final Sql deleteWorker;

	private final EnqueueVisibility visibility;

	private final HeldEnqueue heldEnqueue = new HeldEnqueue(this);

	public SqliteJobStore(SqliteDatabase database, Tables tables) {
		this(database, tables, EnqueueVisibility.AFTER_COMMIT);
	}

	/**
	 * @param visibility when a job enqueued in a transaction on another database becomes
	 * visible to workers
	 */
	public SqliteJobStore(SqliteDatabase database, Tables tables, EnqueueVisibility visibility) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.visibility = Objects.requireNonNull(visibility, "'visibility' must not be null");
		this.events = new JobEvents(tables);
		this.inserts = new JobInserts(tables, this.events);
		this.claims = new SqliteClaims(tables, this.events);
		this.completions = new SqliteCompletions(tables, this.events);
		this.changeToken = new WalChangeToken(database);
		this.renewLease = tables.sql(RENEW_LEASE);
		this.heartbeat = tables.sql(HEARTBEAT);
		this.recordProgress = tables.sql(RECORD_PROGRESS);
		this.anyExpiredLease = tables.sql(ANY_EXPIRED_LEASE);
		this.recoverExpired = tables.sql(RECOVER_EXPIRED);
		this.recoverSeen = tables.sql(RECOVER_SEEN);
		this.findExpired = tables.sql(FIND_EXPIRED);
		this.upsertWorker = tables.sql(UPSERT_WORKER);
		this.deleteWorker = tables.sql(DELETE_WORKER);
	}

	public SqliteDatabase database() {
		return this.database;
	}

	public Tables tables() {
		return this.tables;
	}

	@Override
	public List<Long> enqueue(List<NewJob> jobs, Instant now, Runnable afterCommit) {
		String action = (jobs.size() == 1) ? "enqueue a '" + jobs.get(0).type() + "' job"
				: "enqueue " + jobs.size() + " jobs";
		if (this.visibility == EnqueueVisibility.AFTER_COMMIT && this.database.inOtherTransaction()) {
			return this.heldEnqueue.enqueue(action, jobs, now, afterCommit);
		}
		return this.database.writeJoiningTransaction(action, (connection) -> insertJobs(connection, jobs, now),
				afterCommit);
	}

	/** Inserts jobs in the caller's transaction, for the schedule store's ticks. */
	List<Long> insertJobs(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		return this.inserts.insert(connection, jobs, now);
	}

	@Override
	public List<ClaimedJob> claim(ClaimRequest request, Instant now) {
		if (request.isEmpty()) {
			return List.of();
		}
		return this.database.write("claim jobs", (connection) -> this.claims.claim(connection, request, now));
	}

	/**
	 * The text of the single-statement claim for {@code typeCount} types, for tests of
	 * its query plan.
	 */
	String claimDueStatement(int typeCount) {
		return this.claims.claimDueStatement(typeCount).text();
	}

	@Override
	public boolean[] complete(List<Completion> completions, String workerId, Instant now) {
		if (completions.isEmpty()) {
			return new boolean[0];
		}
		return this.database.write("record the outcome of " + completions.size() + " job(s)",
				(connection) -> this.completions.write(connection, completions, workerId, now));
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
					boolean[] applied = this.completions.write(connection, completions, workerId, now);
					return new CompleteAndClaim(applied, this.claims.claim(connection, request, now));
				});
	}

	@Override
	public Object changeToken() {
		return this.changeToken.current();
	}

	@Override
	public LeaseRenewal renewLeases(String workerId, Collection<RunningJobRef> runs, Instant now, Instant leaseUntil) {
		if (runs.isEmpty()) {
			return LeaseRenewal.NONE;
		}
		return this.database.write("renew the leases of " + runs.size() + " running job(s)",
				(connection) -> extendLeases(connection, this.renewLease, workerId, runs, now, false, leaseUntil));
	}

	@Override
	public LeaseRenewal heartbeat(String workerId, RunningJobRef run, Instant now, Instant leaseUntil) {
		return this.database.write("record the heartbeat of job " + run.jobId(),
				(connection) -> extendLeases(connection, this.heartbeat, workerId, List.of(run), now, true,
						leaseUntil));
	}

	/**
	 * @param handlerHeartbeat whether this is a handler's heartbeat (else a renewal by
	 * the worker, which also refreshes the heartbeat time of jobs waiting for a slot)
	 */
	private static LeaseRenewal extendLeases(Connection connection, Sql statement, String workerId,
			Collection<RunningJobRef> runs, Instant now, boolean handlerHeartbeat, Instant leaseUntil)
			throws SQLException {
		Set<Long> cancelRequested = new HashSet<>();
		Set<Long> lost = new HashSet<>();
		try (SqlStatement renew = statement.prepare(connection)) {
			for (RunningJobRef run : runs) {
				renew.bind("now", now);
				if (!handlerHeartbeat) {
					renew.bind("waiting", run.waiting() ? 1 : 0);
				}
				renew.bind("lease_until", leaseUntil)
					.bind("job_id", run.jobId())
					.bind("run", run.run())
					.bind("worker_id", workerId);
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
	}

	/**
	 * Looks for expired leases in a read first: most rounds find none and need no write
	 * lock.
	 */
	@Override
	public int recoverExpiredLeases(Instant now, int limit) {
		boolean any = this.database.read("look for expired leases", (connection) -> {
			try (SqlStatement select = this.anyExpiredLease.prepare(connection)) {
				return select.bind("now", now).queryString() != null;
			}
		});
		if (!any) {
			return 0;
		}
		return this.database.write("recover jobs with expired leases", (connection) -> {
			try (SqlStatement recover = this.recoverExpired.prepare(connection);
					SqlStatement attempt = this.completions.prepareFinishAttempt(connection);
					SqlStatement event = this.events.prepare(connection)) {
				recover.bind("now", now).bind("limit", limit);
				Map<Long, String> finished = new HashMap<>();
				int recovered = recordRecovered(recover, attempt, event, now, finished);
				attempt.executeBatch();
				event.executeBatch();
				this.completions.settle(connection, finished, "recovery", now);
				return recovered;
			}
		});
	}

	@Override
	public List<ExpiredLease> findExpiredLeases(Instant now, int limit) {
		return this.database.read("look for expired leases", (connection) -> {
			List<ExpiredLease> expired = new ArrayList<>();
			try (SqlStatement select = this.findExpired.prepare(connection)) {
				select.bind("now", now).bind("limit", limit);
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						expired.add(new ExpiredLease(rows.getLong(1), rows.getInt(2),
								Instant.ofEpochMilli(rows.getLong(3))));
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
		return this.database.write("recover jobs with expired leases", (connection) -> {
			int recovered = 0;
			Map<Long, String> finished = new HashMap<>();
			try (SqlStatement recover = this.recoverSeen.prepare(connection);
					SqlStatement attempt = this.completions.prepareFinishAttempt(connection);
					SqlStatement event = this.events.prepare(connection)) {
				for (ExpiredLease lease : leases) {
					recover.bind("now", now)
						.bind("job_id", lease.jobId())
						.bind("run", lease.run())
						.bind("lease_until", lease.leaseUntil());
					recovered += recordRecovered(recover, attempt, event, now, finished);
				}
				attempt.executeBatch();
				event.executeBatch();
			}
			this.completions.settle(connection, finished, "recovery", now);
			return recovered;
		});
	}

	/**
	 * Runs a recovery statement and adds the attempt ends and events of the jobs it took
	 * back.
	 */
	private static int recordRecovered(SqlStatement recover, SqlStatement attempt, SqlStatement event, Instant now,
			Map<Long, String> finished) throws SQLException {
		int recovered = 0;
		try (ResultSet rows = recover.executeQuery()) {
			while (rows.next()) {
				recovered++;
				long id = rows.getLong(1);
				String status = rows.getString(3);
				String detail = rows.getString(5);
				if (!"pending".equals(status)) {
					finished.put(id, status);
				}
				SqliteCompletions.finishAttempt(attempt, id, rows.getInt(2), "LEASE_EXPIRED",
						"LEASE_EXPIRED:WORKER_LOST", detail, null, now);
				String eventName = switch (status) {
					case "pending" -> "RECOVERED";
					case "cancelled" -> "CANCELLED";
					default -> "FAILED";
				};
				JobEvents.add(event, id, now, eventName, "recovery", rows.getString(4) + ": " + detail);
			}
		}
		return recovered;
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
		this.database.write("register worker " + worker.workerId(), (connection) -> {
			try (SqlStatement upsert = this.upsertWorker.prepare(connection)) {
				return upsert.bind("worker_id", worker.workerId())
					.bind("host", worker.host())
					.bind("pid", worker.pid())
					.bind("types", String.join(",", new TreeSet<>(worker.types())))
					.bind("concurrency", worker.concurrency())
					.bind("now", now)
					.executeUpdate();
			}
		});
	}

	@Override
	public void unregisterWorker(String workerId) {
		this.database.write("unregister worker " + workerId, (connection) -> {
			try (SqlStatement delete = this.deleteWorker.prepare(connection)) {
				return delete.bind("worker_id", workerId).executeUpdate();
			}
		});
	}

}
