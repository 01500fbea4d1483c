package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.jobqueue.JobQueueException;

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
public final class PostgresDatabase {

	private static final int TRANSIENT_ATTEMPTS = 5;

	private final DataSource dataSource;

	private final String location;

	private final LongAdder retries = new LongAdder();

	/**
	 * @param location where the database is, for messages: a URL without credentials
	 */
	public PostgresDatabase(DataSource dataSource, String location) {
		this.dataSource = Objects.requireNonNull(dataSource, "'dataSource' must not be null");
		this.location = Objects.requireNonNull(location, "'location' must not be null");
	}

	public DataSource dataSource() {
		return this.dataSource;
	}

	public String location() {
		return this.location;
	}

	/**
	 * How often a transaction was rolled back by the server (deadlock, serialization) and
	 * run again.
	 */
	public long retries() {
		return this.retries.sum();
	}

	/** Runs {@code work} in its own transaction. */
	public <T> T write(String action, SqlWork<T> work) {
		for (int attempt = 1;; attempt++) {
			try (Connection connection = this.dataSource.getConnection()) {
				return inTransaction(connection, work);
			}
			catch (SQLException ex) {
				if (!PostgresErrors.isTransient(ex) || attempt >= TRANSIENT_ATTEMPTS) {
					throw PostgresErrors.translate(ex, action, this.location);
				}
				this.retries.increment();
			}
		}
	}

	/**
	 * Runs {@code work} in the caller's Spring transaction when one is active on this
	 * DataSource, else in its own transaction.
	 * @param afterCommit run once the work is committed
	 */
	public <T> T writeJoiningTransaction(String action, SqlWork<T> work, Runnable afterCommit) {
		return writeJoiningTransaction(action, work, afterCommit, false);
	}

	/**
	 * As {@link #writeJoiningTransaction(String, SqlWork, Runnable)}; outside a caller's
	 * transaction, {@code atomicStatement} work (one statement, atomic by itself, or
	 * statements each complete on its own) runs in auto-commit: one round trip instead of
	 * a statement and a {@code COMMIT}.
	 */
	public <T> T writeJoiningTransaction(String action, SqlWork<T> work, Runnable afterCommit,
			boolean atomicStatement) {
		if (TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.getResource(this.dataSource) != null) {
			Connection connection = DataSourceUtils.getConnection(this.dataSource);
			try {
				if (DataSourceUtils.isConnectionTransactional(connection, this.dataSource)) {
					T result = work.run(connection);
					registerAfterCommit(afterCommit);
					return result;
				}
			}
			catch (SQLException ex) {
				throw PostgresErrors.translate(ex, action, this.location);
			}
			finally {
				DataSourceUtils.releaseConnection(connection, this.dataSource);
			}
		}
		T result = atomicStatement ? writeAutoCommit(action, work) : write(action, work);
		afterCommit.run();
		return result;
	}

	private <T> T writeAutoCommit(String action, SqlWork<T> work) {
		for (int attempt = 1;; attempt++) {
			try (Connection connection = this.dataSource.getConnection()) {
				// A shared pool may hand out connections with auto-commit off: then
				// commit explicitly.
				return connection.getAutoCommit() ? work.run(connection) : inTransaction(connection, work);
			}
			catch (SQLException ex) {
				if (!PostgresErrors.isTransient(ex) || attempt >= TRANSIENT_ATTEMPTS) {
					throw PostgresErrors.translate(ex, action, this.location);
				}
				this.retries.increment();
			}
		}
	}

	/**
	 * Runs read-only {@code work} on an auto-commit connection (each statement sees the
	 * latest commits).
	 */
	public <T> T read(String action, SqlWork<T> work) {
		try (Connection connection = this.dataSource.getConnection()) {
			if (!connection.getAutoCommit()) {
				connection.setAutoCommit(true);
			}
			return work.run(connection);
		}
		catch (SQLException ex) {
			throw PostgresErrors.translate(ex, action, this.location);
		}
	}

	/**
	 * Runs read-only {@code work} in one repeatable-read transaction: every statement
	 * sees the same state.
	 */
	public <T> T readConsistent(String action, SqlWork<T> work) {
		try (Connection connection = this.dataSource.getConnection()) {
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
			throw PostgresErrors.translate(ex, action, this.location);
		}
	}

	private static <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
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

	private static void registerAfterCommit(Runnable afterCommit) {
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					afterCommit.run();
				}
			});
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
