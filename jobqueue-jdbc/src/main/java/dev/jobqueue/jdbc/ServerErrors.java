package dev.jobqueue.jdbc;

import java.sql.SQLException;

import dev.jobqueue.JobQueueException;

/**
 * What the failures of one database server mean (PostgreSQL's SQLSTATEs, MySQL's error
 * numbers): which are worth running the transaction again, which say the connection is
 * gone or the user lacks a privilege, and the error a user reads. {@link ServerDatabase}
 * and {@link ServerSchema} ask it; the store says it once.
 */
public interface ServerErrors {

	/** The server's name in messages: {@code PostgreSQL}, {@code MySQL/MariaDB}. */
	String serverName();

	/**
	 * A conflict with a concurrent transaction (a deadlock, a serialization failure, a
	 * lock waited for too long): the transaction was rolled back and may simply run
	 * again.
	 */
	boolean isTransient(SQLException ex);

	/** The connection is gone or the server cannot take it: a later try may work. */
	boolean isConnectionFailure(Throwable ex);

	/** The database user lacks a privilege the queue needs. */
	boolean lacksPrivilege(Throwable ex);

	/**
	 * An error that says what failed, where and what to do.
	 * @param action what failed, as "claim jobs"
	 * @param location where the database is: a URL without credentials
	 */
	JobQueueException translate(SQLException ex, String action, String location);

}
