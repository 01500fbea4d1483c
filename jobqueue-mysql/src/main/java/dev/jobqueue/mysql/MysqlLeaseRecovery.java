package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.core.store.ExpiredLease;
import dev.jobqueue.jdbc.JdbcCompletions;
import dev.jobqueue.jdbc.JdbcDatabase;
import dev.jobqueue.jdbc.JdbcLeaseRecovery;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * Lease recovery on MySQL ({@link JdbcLeaseRecovery}): an UPDATE returns no rows, so the
 * expired runs are locked first ({@code FOR UPDATE SKIP LOCKED}, so recoveries in several
 * processes take different runs), taken back by id and read back; a lease seen expired is
 * taken back fenced on its run and lease end, and read back when it was.
 */
final class MysqlLeaseRecovery extends JdbcLeaseRecovery {

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
			SELECT j.id, j.runs, j.status, j.error_code, j.error_detail, %s, j.type FROM {jobs} j WHERE j.id {in_ids :ids}
			"""
		.formatted(MysqlCompletions.HAS_DEPENDENTS);

	static final Statements STATEMENTS = new Statements(RECOVER_EXPIRED, RECOVER_SEEN, FIND_EXPIRED);

	private final Sql lockExpired;

	private final Sql readRecovered;

	MysqlLeaseRecovery(JdbcDatabase database, Tables tables, JobEvents events, JdbcCompletions completions) {
		super(database, tables, events, completions, STATEMENTS);
		this.lockExpired = tables.sql(LOCK_EXPIRED);
		this.readRecovered = tables.sql(READ_RECOVERED);
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
