package dev.jobqueue.mysql;

import java.sql.SQLException;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.ServerErrors;
import dev.jobqueue.jdbc.SqlErrors;

/**
 * Turns MySQL and MariaDB failures (by their error number, or the SQLSTATE of a lost
 * connection) into errors that say what happened and what to do.
 */
final class MysqlErrors implements ServerErrors {

	static final MysqlErrors INSTANCE = new MysqlErrors();

	static final int DEADLOCK = 1213;

	static final int LOCK_WAIT_TIMEOUT = 1205;

	static final int ACCESS_DENIED = 1045;

	static final int UNKNOWN_DATABASE = 1049;

	static final int TABLE_ACCESS_DENIED = 1142;

	static final int DATABASE_ACCESS_DENIED = 1044;

	static final int NO_SUCH_TABLE = 1146;

	static final int READ_ONLY = 1290;

	static final int DISK_FULL = 1021;

	private MysqlErrors() {
	}

	@Override
	public String serverName() {
		return "MySQL/MariaDB";
	}

	/**
	 * A conflict with a concurrent transaction that rolled this one back (a deadlock), or
	 * a lock waited for too long: running the transaction again may simply work. InnoDB
	 * rolls back only the statement on a lock wait timeout, so the caller rolls back the
	 * rest before the retry.
	 */
	@Override
	public boolean isTransient(SQLException ex) {
		int code = SqlErrors.vendorCode(ex);
		return code == DEADLOCK || code == LOCK_WAIT_TIMEOUT;
	}

	@Override
	public boolean isConnectionFailure(Throwable ex) {
		String state = SqlErrors.state(ex);
		int code = SqlErrors.vendorCode(ex);
		// 1040 too many connections, 1053 server shutdown, 1927 connection killed, 2002
		// and 2003 cannot connect, 2006 gone away, 2013 lost during a query.
		return state.startsWith("08") || code == 1040 || code == 1053 || code == 1927 || code == 2002 || code == 2003
				|| code == 2006 || code == 2013;
	}

	@Override
	public boolean lacksPrivilege(Throwable ex) {
		int code = SqlErrors.vendorCode(ex);
		return code == TABLE_ACCESS_DENIED || code == DATABASE_ACCESS_DENIED || code == 1227;
	}

	@Override
	public JobQueueException translate(SQLException ex, String action, String location) {
		String where = " (database " + location + ")";
		if (isConnectionFailure(ex)) {
			return new JobQueueException("Could not " + action + where + ": the MySQL/MariaDB server cannot be reached "
					+ "or closed the connection (" + ex.getMessage() + "). Check that the server is running and "
					+ "reachable from this host; a running queue tries again by itself and loses nothing committed; "
					+ "at start-up the application stops instead, so start it again once the server answers.", ex);
		}
		return switch (SqlErrors.vendorCode(ex)) {
			case ACCESS_DENIED -> new JobQueueException("Could not " + action + where + ": the server refused the "
					+ "user or password (" + ex.getMessage() + "). Check the credentials in jobqueue.datasource.* (or "
					+ "spring.datasource.* when the queue shares the application's DataSource).", ex);
			case UNKNOWN_DATABASE -> new JobQueueException("Could not " + action + where + ": the database does not "
					+ "exist (" + ex.getMessage() + "). Create it (CREATE DATABASE ... CHARACTER SET utf8mb4) or fix "
					+ "the database name in the URL.", ex);
			case TABLE_ACCESS_DENIED, DATABASE_ACCESS_DENIED, 1227 -> new JobQueueException("Could not " + action
					+ where + ": the database user lacks a privilege (" + ex.getMessage() + "). Grant it the rights "
					+ "on the queue's database (GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, INDEX, DROP, "
					+ "REFERENCES ON <database>.* TO <user>), or use a user that has them.", ex);
			case NO_SUCH_TABLE -> new JobQueueException("Could not " + action + where + ": a queue table is missing ("
					+ ex.getMessage() + "). The queue's schema was not migrated in this database, or was dropped; "
					+ "restart the application to migrate it.", ex);
			case DISK_FULL, 1114 -> new JobQueueException("Could not " + action + where + ": the server's disk or "
					+ "table is full (" + ex.getMessage() + "). Free space on the server; nothing was written.", ex);
			case READ_ONLY, 1792 -> new JobQueueException("Could not " + action + where + ": the server is read-only ("
					+ ex.getMessage() + "), a replica or read_only is on. Point the queue at the primary.", ex);
			default -> new JobQueueException("Could not " + action + where + ": " + ex.getMessage(), ex);
		};
	}

}
