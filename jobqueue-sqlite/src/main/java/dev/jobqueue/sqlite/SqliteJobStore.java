package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.jobqueue.core.store.EnqueueVisibility;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.jdbc.JdbcJobStore;
import dev.jobqueue.jdbc.JdbcLeaseRecovery;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JobStore} on SQLite: the shared {@link JdbcJobStore} with SQLite's parts:
 * {@link SqliteJobInserts} (enqueue), {@link SqliteClaims} (claim, with its single
 * writer), {@link SqliteCompletions} (outcome statements), {@link SqliteLinks} (chains),
 * the write-ahead log as the change token ({@link WalChangeToken}), leases renewed row by
 * row, and enqueues held until a caller's transaction on another database commits
 * ({@link HeldEnqueue}).
 */
public final class SqliteJobStore extends JdbcJobStore {

	/**
	 * The worker's renewal of one run: the lease, and {@code heartbeat_at} only of a job
	 * waiting for a slot (no handler yet); a started job's is its handler's own.
	 */
	private static final String RENEW_LEASE = """
			UPDATE {jobs} SET lease_until = :lease_until,
			    heartbeat_at = CASE WHEN :waiting = 1 THEN :now ELSE heartbeat_at END
			WHERE id = :job_id AND runs = :run AND status = 'running' AND worker_id = :worker_id
			RETURNING cancel_requested
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

	/** Every finished job is offered to the settle, which looks for dependents. */
	private static final String RECOVERED_COLUMNS = """
			RETURNING id, runs, status, error_code, error_detail, 1, type
			""";

	private static final JdbcLeaseRecovery.Statements STATEMENTS = new JdbcLeaseRecovery.Statements(RECOVERED + """
			WHERE id IN (SELECT id FROM {jobs} WHERE status = 'running' AND lease_until < :now LIMIT :limit)
			""" + RECOVERED_COLUMNS, RECOVERED + """
			WHERE id = :job_id AND runs = :run AND lease_until = :lease_until AND status = 'running'
			""" + RECOVERED_COLUMNS, """
			SELECT id, runs, lease_until FROM {jobs} WHERE status = 'running' AND lease_until < :now LIMIT :limit
			""");

	private final SqliteDatabase database;

	private final SqliteClaims claims;

	private final WalChangeToken changeToken;

	private final Sql renewLease;

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
		this(database, tables, visibility, new JobEvents(tables));
	}

	private SqliteJobStore(SqliteDatabase database, Tables tables, EnqueueVisibility visibility, JobEvents events) {
		this(database, tables, visibility, events, new SqliteLinks(tables, events), new SqliteClaims(tables, events));
	}

	private SqliteJobStore(SqliteDatabase database, Tables tables, EnqueueVisibility visibility, JobEvents events,
			SqliteLinks links, SqliteClaims claims) {
		super(database, tables, events, claims, new SqliteJobInserts(tables, links),
				SqliteCompletions.create(tables, events, links), JdbcLeaseRecovery.of(STATEMENTS));
		this.database = database;
		this.claims = claims;
		this.visibility = Objects.requireNonNull(visibility, "'visibility' must not be null");
		this.changeToken = new WalChangeToken(database);
		this.renewLease = tables.sql(RENEW_LEASE);
	}

	@Override
	public SqliteDatabase database() {
		return this.database;
	}

	@Override
	public List<Long> enqueue(List<NewJob> jobs, Instant now, Runnable afterCommit) {
		if (this.visibility == EnqueueVisibility.AFTER_COMMIT && this.database.inOtherTransaction()) {
			return this.heldEnqueue.enqueue(enqueueAction(jobs), jobs, now, afterCommit);
		}
		return super.enqueue(jobs, now, afterCommit);
	}

	/**
	 * The text of the single-statement claim for {@code typeCount} types, for tests of
	 * its query plan.
	 */
	String claimDueStatement(int typeCount) {
		return this.claims.claimDueStatement(typeCount).text();
	}

	/** The statements of a claim by rounds across keys, for tests of their plans. */
	Map<String, String> keyedClaimStatements() {
		return this.claims.keyedStatements();
	}

	/** The write-ahead log's size and time: a stat call, no query. */
	@Override
	public Object changeToken() {
		return this.changeToken.current();
	}

	/**
	 * Row by row: the database holds one writer, and each update is a cached statement.
	 */
	@Override
	protected LeaseRenewal renewLeases(Connection connection, String workerId, Collection<RunningJobRef> runs,
			Instant now, Instant leaseUntil) throws SQLException {
		Set<Long> cancelRequested = new HashSet<>();
		Set<Long> lost = new HashSet<>();
		try (SqlStatement renew = this.renewLease.prepare(connection)) {
			for (RunningJobRef run : runs) {
				renew.bind("now", now)
					.bind("waiting", run.waiting() ? 1 : 0)
					.bind("lease_until", leaseUntil)
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

}
