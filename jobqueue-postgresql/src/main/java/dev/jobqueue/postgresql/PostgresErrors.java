package dev.jobqueue.postgresql;

import java.sql.SQLException;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.ServerErrors;
import dev.jobqueue.jdbc.SqlErrors;

/**
 * Turns PostgreSQL failures (by SQLSTATE) into errors that say what happened and what to
 * do.
 */
final class PostgresErrors implements ServerErrors {

	static final PostgresErrors INSTANCE = new PostgresErrors();

	static final String UNIQUE_VIOLATION = "23505";

	static final String INSUFFICIENT_PRIVILEGE = "42501";

	private PostgresErrors() {
	}

	@Override
	public String serverName() {
		return "PostgreSQL";
	}

	/** A serialization failure, a deadlock, or a lock not available. */
	@Override
	public boolean isTransient(SQLException ex) {
		String state = SqlErrors.state(ex);
		return state.equals("40001") || state.equals("40P01") || state.equals("55P03");
	}

	@Override
	public boolean isConnectionFailure(Throwable ex) {
		String state = SqlErrors.state(ex);
		return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
	}

	@Override
	public boolean lacksPrivilege(Throwable ex) {
		return SqlErrors.state(ex).equals(INSUFFICIENT_PRIVILEGE);
	}

	@Override
	public JobQueueException translate(SQLException ex, String action, String location) {
		String where = " (database " + location + ")";
		String state = SqlErrors.state(ex);
		if (isConnectionFailure(ex)) {
			return new JobQueueException("Could not " + action + where + ": the PostgreSQL server cannot be reached or "
					+ "closed the connection (" + ex.getMessage() + "). Check that the server is running and reachable "
					+ "from this host; a running queue tries again by itself and loses nothing committed; "
					+ "at start-up the application stops instead, so start it again once the server answers.", ex);
		}
		return switch (state) {
			case "28P01", "28000" -> new JobQueueException("Could not " + action + where + ": the server refused the "
					+ "user or password (" + ex.getMessage() + "). Check the credentials in jobqueue.datasource.* (or "
					+ "spring.datasource.* when the queue shares the application's DataSource).", ex);
			case "3D000" -> new JobQueueException("Could not " + action + where + ": the database does not exist ("
					+ ex.getMessage() + "). Create it (CREATE DATABASE) or fix the database name in the URL.", ex);
			case INSUFFICIENT_PRIVILEGE -> new JobQueueException("Could not " + action + where + ": the database user "
					+ "lacks a privilege (" + ex.getMessage() + "). Grant it the rights on the queue's schema "
					+ "(USAGE, CREATE and the rights on its tables), or use a user that has them.", ex);
			case "42P01" -> new JobQueueException("Could not " + action + where + ": a queue table is missing ("
					+ ex.getMessage() + "). The queue's schema was not migrated in this database and schema, or was "
					+ "dropped; restart the application to migrate it.", ex);
			case "53100" -> new JobQueueException("Could not " + action + where + ": the server's disk is full ("
					+ ex.getMessage() + "). Free space on the server; nothing was written.", ex);
			case "25006" -> new JobQueueException("Could not " + action + where + ": the server is read-only (a hot "
					+ "standby, or default_transaction_read_only is on). Point the queue at the primary.", ex);
			default -> new JobQueueException("Could not " + action + where + ": " + ex.getMessage(), ex);
		};
	}

}
