package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.CallerTransactions;
import dev.jobqueue.jdbc.JdbcDatabase;
import dev.jobqueue.jdbc.SqlWork;

/**
 * Runs the queue's transactions against one PostgreSQL database, at READ COMMITTED (the
 * server's default).
 *
 * <ul>
 * <li>Claims need no lock of their own: {@code FOR UPDATE SKIP LOCKED} lets any number of
 * workers claim at once, each taking rows the others have not locked.</li>
 * <li>A transaction the server rolled back because of a deadlock or a serialization
 * failure is run again, a few times; each retry is counted.</li>
 * <li>A lost connection is not retried here: the outcome of its commit is unknown, so the
 * caller (the worker's loop, with its backoff) decides. The pool drops broken connections
 * by itself.</li>
 * </ul>
 */
public final class PostgresDatabase extends JdbcDatabase {

	private static final int TRANSIENT_ATTEMPTS = 5;

	/**
	 * @param location where the database is, for messages: a URL without credentials
	 */
	public PostgresDatabase(DataSource dataSource, String location) {
		this(dataSource, location, CallerTransactions.NONE);
	}

	/**
	 * @param callerTransactions the application's transactions, which writes on a shared
	 * DataSource join
	 */
	public PostgresDatabase(DataSource dataSource, String location, CallerTransactions callerTransactions) {
		super(dataSource, location, callerTransactions);
	}

	@Override
	protected boolean isWorthRetrying(SQLException ex, int attempt, long elapsedNanos) {
		return PostgresErrors.isTransient(ex) && attempt < TRANSIENT_ATTEMPTS;
	}

	@Override
	protected JobQueueException translate(SQLException ex, String action) {
		return PostgresErrors.translate(ex, action, location());
	}

	/**
	 * One statement in auto-commit: one round trip instead of a statement and a
	 * {@code COMMIT}. A shared pool may hand out connections with auto-commit off: then
	 * it commits explicitly.
	 */
	@Override
	protected <T> T writeAtomicStatement(String action, SqlWork<T> work) throws SQLException {
		try (Connection connection = dataSource().getConnection()) {
			return connection.getAutoCommit() ? work.run(connection) : inTransaction(connection, work);
		}
	}

	/** Each statement of a read sees the latest commits. */
	@Override
	protected void beforeRead(Connection connection, String action) throws SQLException {
		if (!connection.getAutoCommit()) {
			connection.setAutoCommit(true);
		}
	}

	/**
	 * Runs read-only {@code work} in one repeatable-read transaction: every statement
	 * sees the same state.
	 */
	@Override
	public <T> T readConsistent(String action, SqlWork<T> work) {
		try (Connection connection = dataSource().getConnection()) {
			int isolation = connection.getTransactionIsolation();
			connection.setAutoCommit(false);
			connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
			connection.setReadOnly(true);
			try {
				T result = work.run(connection);
				connection.commit();
				return result;
			}
			catch (SQLException | RuntimeException ex) {
				rollbackQuietly(connection);
				throw ex;
			}
			finally {
				connection.setReadOnly(false);
				connection.setTransactionIsolation(isolation);
				connection.setAutoCommit(true);
			}
		}
		catch (SQLException ex) {
			throw translate(ex, action);
		}
	}

	@Override
	protected <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
		connection.setAutoCommit(false);
		try {
			T result = work.run(connection);
			connection.commit();
			return result;
		}
		catch (SQLException | RuntimeException ex) {
			rollbackQuietly(connection);
			throw ex;
		}
		finally {
			restoreAutoCommit(connection);
		}
	}

	private static void rollbackQuietly(Connection connection) {
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			// The connection is broken; the pool discards it.
		}
	}

	private static void restoreAutoCommit(Connection connection) {
		try {
			connection.setAutoCommit(true);
		}
		catch (SQLException ex) {
			// The connection is broken; the pool discards it.
		}
	}

	static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new JobQueueException("Interrupted while waiting for the queue database", ex);
		}
	}

}
