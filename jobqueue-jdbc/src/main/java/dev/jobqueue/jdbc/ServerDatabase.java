package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

import javax.sql.DataSource;

import dev.jobqueue.JobQueueException;

/**
 * The transactions of a database server that many processes share (PostgreSQL, MySQL): a
 * write is a transaction on a pooled connection in auto-commit mode between transactions,
 * a read runs each statement on the latest commits, and a consistent read is one
 * repeatable-read, read-only transaction. A lost connection is not retried here: the
 * outcome of its commit is unknown, so the caller (the worker's loop, with its backoff)
 * decides; the pool drops broken connections by itself. A transaction the server rolled
 * back because it conflicted with another ({@link ServerErrors#isTransient}) is run
 * again, a few times; each retry is counted.
 */
public abstract class ServerDatabase extends JdbcDatabase {

	private static final int TRANSIENT_ATTEMPTS = 5;

	private final ServerErrors errors;

	/**
	 * @param location where the database is, for messages: a URL without credentials
	 * @param callerTransactions the application's transactions, which writes on a shared
	 * DataSource join
	 * @param errors what the server's failures mean
	 */
	protected ServerDatabase(DataSource dataSource, String location, CallerTransactions callerTransactions,
			ServerErrors errors) {
		super(dataSource, location, callerTransactions);
		this.errors = Objects.requireNonNull(errors, "'errors' must not be null");
	}

	/** What the server's failures mean. */
	public final ServerErrors errors() {
		return this.errors;
	}

	@Override
	protected final boolean isWorthRetrying(SQLException ex, int attempt, long elapsedNanos) {
		return this.errors.isTransient(ex) && attempt < TRANSIENT_ATTEMPTS;
	}

	@Override
	protected final JobQueueException translate(SQLException ex, String action) {
		return this.errors.translate(ex, action, location());
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
