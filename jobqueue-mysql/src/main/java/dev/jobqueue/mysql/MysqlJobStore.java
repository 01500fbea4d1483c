package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

import dev.jobqueue.core.store.ExpiredLease;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.jdbc.JdbcJobStore;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JobStore} on MySQL and MariaDB: the shared {@link JdbcJobStore} with MySQL's
 * parts: {@link MysqlJobInserts}, {@link MysqlClaims} ({@code FOR UPDATE SKIP LOCKED}),
 * {@link MysqlCompletions}, {@link MysqlLinks}; leases renewed in one statement joined
 * with the runs as a JSON table, expired runs locked, taken back and read.
 *
 * <p>
 * MySQL has no {@code LISTEN/NOTIFY}, so there is no change token: workers of other
 * processes see new jobs at their next poll ({@code jobqueue.worker.poll-interval}); this
 * process's worker is woken at once by its own enqueues, and here by jobs that turned
 * pending when jobs they waited for finished.
 */
public final class MysqlJobStore extends JdbcJobStore {

	/** The lease, and {@code heartbeat_at} only of runs waiting for a slot. */
	static final String RENEW_LEASES = """
			UPDATE {jobs} j
			JOIN JSON_TABLE(:runs, '$[*]' COLUMNS (id BIGINT PATH '$[0]', run INT PATH '$[1]', waiting INT PATH '$[2]')) r
			    ON j.id = r.id AND j.runs = r.run
			SET j.lease_until = :lease_until, j.heartbeat_at = CASE WHEN r.waiting = 1 THEN :now ELSE j.heartbeat_at END
			WHERE j.status = 'running' AND j.worker_id = :worker_id
			""";

	static final String RENEWED = """
			SELECT j.id, j.cancel_requested FROM {jobs} j
			JOIN JSON_TABLE(:runs, '$[*]' COLUMNS (id BIGINT PATH '$[0]', run INT PATH '$[1]')) r
			    ON j.id = r.id AND j.runs = r.run
			WHERE j.status = 'running' AND j.worker_id = :worker_id
			""";

	static final String HEARTBEAT = """
			UPDATE {jobs} SET heartbeat_at = :now, lease_until = :lease_until
			WHERE id = :job_id AND runs = :run AND status = 'running' AND worker_id = :worker_id
			""";

	static final String CANCEL_REQUESTED = """
			SELECT cancel_requested FROM {jobs} WHERE id = :job_id
			""";

	/**
	 * How a lease that expired ends: cancelled when a cancel was asked for, failed when
	 * the job must not run twice or has no attempts left, else pending again. MySQL
	 * assigns left to right; no expression reads a column set before it. The lease's end
	 * is written as UTC text by arithmetic, never through the session's time zone.
	 */
	private static final String RECOVERED = """
			SET status = CASE WHEN cancel_requested THEN 'cancelled'
			                  WHEN NOT repeatable OR attempts >= max_attempts THEN 'failed'
			                  ELSE 'pending' END,
			    error_code = CASE WHEN cancel_requested THEN error_code
			                      WHEN NOT repeatable THEN 'LEASE_EXPIRED:NOT_REPEATABLE'
			                      WHEN attempts >= max_attempts THEN 'LEASE_EXPIRED:MAX_ATTEMPTS'
			                      ELSE 'LEASE_EXPIRED:WORKER_LOST' END,
			    error_detail = CONCAT('Worker ', coalesce(worker_id, '?'), ' stopped renewing its lease, which expired at ',
			        DATE_FORMAT(TIMESTAMPADD(SECOND, lease_until DIV 1000, '1970-01-01 00:00:00'), '%%Y-%%m-%%dT%%H:%%i:%%s'),
			        '.', LPAD(lease_until MOD 1000, 3, '0'), 'Z'),
			    finished_at = CASE WHEN cancel_requested OR NOT repeatable OR attempts >= max_attempts THEN :now END,
			    run_at = :now, lease_until = NULL
			"""
		.strip();

	static final String LOCK_EXPIRED = """
			SELECT id FROM {jobs} WHERE status = 'running' AND lease_until < :now
			ORDER BY lease_until LIMIT :limit
			FOR UPDATE SKIP LOCKED
			""";

	static final String RECOVER_EXPIRED = """
			UPDATE {jobs}
			%s
			WHERE status = 'running' AND lease_until < :now AND id {in_ids :ids}
			""".formatted(RECOVERED);

	/**
	 * One lease as it was seen expired: fenced on the run and the lease's end, so a
	 * renewal since wins.
	 */
	static final String RECOVER_SEEN = """
			UPDATE {jobs}
			%s
			WHERE id = :job_id AND runs = :run AND lease_until = :lease_until AND status = 'running'
			""".formatted(RECOVERED);

	static final String READ_RECOVERED = """
			SELECT j.id, j.runs, j.status, j.error_code, j.error_detail, %s FROM {jobs} j WHERE j.id {in_ids :ids}
			""".formatted(MysqlCompletions.HAS_DEPENDENTS);

	private static final Statements STATEMENTS = new Statements(RECOVER_EXPIRED, RECOVER_SEEN, FIND_EXPIRED);

	private final MysqlDatabase database;

	private final MysqlLinks links;

	private final Sql renewLeases;

	private final Sql renewed;

	private final Sql heartbeat;

	private final Sql cancelRequested;

	private final Sql lockExpired;

	private final Sql readRecovered;

	private volatile QueueSignals signals;

	public MysqlJobStore(MysqlDatabase database, Tables tables) {
		this(database, tables, new JobEvents(tables));
	}

	private MysqlJobStore(MysqlDatabase database, Tables tables, JobEvents events) {
		this(database, tables, events, new MysqlLinks(tables, events));
	}

	private MysqlJobStore(MysqlDatabase database, Tables tables, JobEvents events, MysqlLinks links) {
		super(database, tables, events, new MysqlClaims(tables), new MysqlJobInserts(tables, links),
				MysqlCompletions.create(tables, events, links), STATEMENTS);
		this.database = database;
		this.links = links;
		this.renewLeases = tables.sql(RENEW_LEASES);
		this.renewed = tables.sql(RENEWED);
		this.heartbeat = tables.sql(HEARTBEAT);
		this.cancelRequested = tables.sql(CANCEL_REQUESTED);
		this.lockExpired = tables.sql(LOCK_EXPIRED);
		this.readRecovered = tables.sql(READ_RECOVERED);
	}

	MysqlLinks links() {
		return this.links;
	}

	@Override
	public MysqlDatabase database() {
		return this.database;
	}

	/** Where jobs that turned pending in this process are told, so its worker wakes. */
	void signals(QueueSignals signals) {
		this.signals = signals;
	}

	@Override
	protected void jobsTurnedPending(int count) {
		QueueSignals signals = this.signals;
		if (count > 0 && signals != null) {
			signals.jobsEnqueued();
		}
	}

	@Override
	protected LeaseRenewal renewLeases(Connection connection, String workerId, Collection<RunningJobRef> runs,
			Instant now, Instant leaseUntil) throws SQLException {
		StringBuilder json = new StringBuilder(runs.size() * 24).append('[');
		for (RunningJobRef run : runs) {
			json.append((json.length() > 1) ? "," : "")
				.append('[')
				.append(run.jobId())
				.append(',')
				.append(run.run())
				.append(',')
				.append(run.waiting() ? 1 : 0)
				.append(']');
		}
		String list = json.append(']').toString();
		try (SqlStatement renew = this.renewLeases.prepare(connection)) {
			renew.bind("runs", list)
				.bind("lease_until", leaseUntil)
				.bind("now", now)
				.bind("worker_id", workerId)
				.executeUpdate();
		}
		try (SqlStatement select = this.renewed.prepare(connection);
				ResultSet rows = select.bind("runs", list).bind("worker_id", workerId).executeQuery()) {
			return renewal(runs, rows);
		}
	}

	@Override
	protected LeaseRenewal heartbeat(Connection connection, String workerId, RunningJobRef run, Instant now,
			Instant leaseUntil) throws SQLException {
		try (SqlStatement beat = this.heartbeat.prepare(connection)) {
			beat.bind("now", now)
				.bind("lease_until", leaseUntil)
				.bind("job_id", run.jobId())
				.bind("run", run.run())
				.bind("worker_id", workerId);
			if (beat.executeUpdate() == 0) {
				return new LeaseRenewal(Set.of(), Set.of(run.jobId()));
			}
		}
		try (SqlStatement select = this.cancelRequested.prepare(connection);
				ResultSet rows = select.bind("job_id", run.jobId()).executeQuery()) {
			boolean requested = rows.next() && rows.getBoolean(1);
			return new LeaseRenewal(requested ? Set.of(run.jobId()) : Set.of(), Set.of());
		}
	}

	@Override
	protected List<Recovered> recoverExpired(Connection connection, Instant now, int limit) throws SQLException {
		List<Long> ids = new ArrayList<>();
		try (SqlStatement lock = this.lockExpired.prepare(connection);
				ResultSet rows = lock.bind("now", now).bind("limit", limit).executeQuery()) {
			while (rows.next()) {
				ids.add(rows.getLong(1));
			}
		}
		if (ids.isEmpty()) {
			return List.of();
		}
		try (SqlStatement recover = recoverExpiredStatement().prepare(connection)) {
			recover.bind("now", now).bindIds("ids", ids).executeUpdate();
		}
		return readRecovered(connection, ids);
	}

	@Override
	protected List<Recovered> recoverSeen(Connection connection, ExpiredLease lease, Instant now) throws SQLException {
		try (SqlStatement recover = recoverSeenStatement().prepare(connection)) {
			recover.bind("now", now)
				.bind("job_id", lease.jobId())
				.bind("run", lease.run())
				.bind("lease_until", lease.leaseUntil());
			if (recover.executeUpdate() == 0) {
				return List.of();
			}
		}
		return readRecovered(connection, List.of(lease.jobId()));
	}

	private List<Recovered> readRecovered(Connection connection, List<Long> ids) throws SQLException {
		try (SqlStatement read = this.readRecovered.prepare(connection)) {
			return recovered(read.bindIds("ids", ids));
		}
	}

}
