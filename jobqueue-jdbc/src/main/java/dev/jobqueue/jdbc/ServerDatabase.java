package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

/**
 * The transactions of a database server that many processes share (PostgreSQL, MySQL): a
 * write is a transaction on a pooled connection in auto-commit mode between transactions,
 * a read runs each statement on the latest commits, and a consistent read is one
 * repeatable-read, read-only transaction. A lost connection is not retried here: the
 * outcome of its commit is unknown, so the caller (the worker's loop, with its backoff)
 * decides; the pool drops broken connections by itself.
 */
public abstract class ServerDatabase extends JdbcDatabase {

	protected ServerDatabase(DataSource dataSource, String location, CallerTransactions callerTransactions) {
		super(dataSource, location, callerTransactions);
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

}
