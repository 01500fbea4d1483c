package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs the queue's transactions against one SQLite database.
 *
 * <ul>
 * <li>Every write transaction starts with {@code BEGIN IMMEDIATE}: it takes the write lock before it reads, so
 * {@code busy_timeout} applies. A deferred transaction that reads and then writes can fail with
 * {@code SQLITE_BUSY} at once, whatever the timeout.</li>
 * <li>Connections stay in auto-commit mode between transactions. (The driver's own transaction mode would
 * begin the next transaction right after each commit and keep the write lock from other processes.)</li>
 * <li>Writes inside this process take one lock first, so they queue in the JVM instead of fighting over
 * SQLite's single write lock.</li>
 * <li>A write that still finds the database busy after {@code busy_timeout} is tried again until
 * {@code lockWait} has passed; only then does the caller see an error. Each such retry is counted.</li>
 * </ul>
 */
public final class SqliteDatabase {

	private final DataSource dataSource;

	private final String location;

	private final Duration lockWait;

	private final ReentrantLock writeLock = new ReentrantLock(true);

	private final LongAdder busyRetries = new LongAdder();

	public SqliteDatabase(DataSource dataSource, String location, Duration lockWait) {
		this.dataSource = Objects.requireNonNull(dataSource, "'dataSource' must not be null");
		this.location = Objects.requireNonNull(location, "'location' must not be null");
		this.lockWait = Objects.requireNonNull(lockWait, "'lockWait' must not be null");
	}

	public DataSource dataSource() {
		return this.dataSource;
	}

	/** Where the database is, for messages. */
	public String location() {
		return this.location;
	}

	/** How often a write found the database locked after {@code busy_timeout} and was tried again. */
	public long busyRetries() {
		return this.busyRetries.sum();
	}

	/** Runs {@code work} in its own {@code BEGIN IMMEDIATE} transaction. */
	public <T> T write(String action, SqlWork<T> work) {
		long deadline = System.nanoTime() + this.lockWait.toNanos();
		long pause = 5;
		while (true) {
			this.writeLock.lock();
			try (Connection connection = this.dataSource.getConnection()) {
				return inTransaction(connection, work);
			}
			catch (SQLException ex) {
				if (!SqliteErrors.isBusy(ex) || System.nanoTime() > deadline) {
					throw SqliteErrors.translate(ex, action, this.location);
				}
				this.busyRetries.increment();
			}
			finally {
				this.writeLock.unlock();
			}
			pause(pause);
			pause = Math.min(pause * 2, 200);
		}
	}

	/**
	 * Runs {@code work} on an auto-commit connection while holding this process's write lock: for statements
	 * that cannot run inside a transaction ({@code VACUUM}, a truncating checkpoint) but must not make this
	 * process's own writers wait on SQLite's lock. Not retried: {@code work} decides what "busy" means.
	 */
	public <T> T writeOutsideTransaction(String action, SqlWork<T> work) {
		this.writeLock.lock();
		try (Connection connection = this.dataSource.getConnection()) {
			return work.run(connection);
		}
		catch (SQLException ex) {
			throw SqliteErrors.translate(ex, action, this.location);
		}
		finally {
			this.writeLock.unlock();
		}
	}

	/**
	 * Runs {@code work} in the caller's Spring transaction when one is active on this DataSource, else in its
	 * own transaction.
	 * @param afterCommit run once the work is committed
	 */
	public <T> T writeJoiningTransaction(String action, SqlWork<T> work, Runnable afterCommit) {
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
				throw SqliteErrors.translate(ex, action, this.location);
			}
			finally {
				DataSourceUtils.releaseConnection(connection, this.dataSource);
			}
		}
		T result = write(action, work);
		afterCommit.run();
		return result;
	}

	/** Runs read-only {@code work} on an auto-commit connection. */
	public <T> T read(String action, SqlWork<T> work) {
		try (Connection connection = this.dataSource.getConnection()) {
			return work.run(connection);
		}
		catch (SQLException ex) {
			throw SqliteErrors.translate(ex, action, this.location);
		}
	}

	private static <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
		boolean open = false;
		try (Statement statement = connection.createStatement()) {
			statement.execute("BEGIN IMMEDIATE");
			open = true;
			T result = work.run(connection);
			statement.execute("COMMIT");
			open = false;
			return result;
		}
		finally {
			if (open) {
				rollbackQuietly(connection);
			}
		}
	}

	private static void rollbackQuietly(Connection connection) {
		try (Statement statement = connection.createStatement()) {
			statement.execute("ROLLBACK");
		}
		catch (SQLException ex) {
			// The transaction is gone already (SQLite rolls back on some errors by itself).
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

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new dev.jobqueue.JobQueueException("Interrupted while waiting for the queue database lock", ex);
		}
	}

}
