package dev.jobqueue.sqlite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.concurrent.locks.ReentrantLock;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.ProxyConnection;
import org.sqlite.SQLiteConnection;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.jobqueue.JobQueueException;

/**
 * Runs the queue's transactions against one SQLite database.
 *
 * <ul>
 * <li>Every write transaction starts with {@code BEGIN IMMEDIATE}: it takes the write
 * lock before it reads, so {@code busy_timeout} applies. A deferred transaction that
 * reads and then writes can fail with {@code SQLITE_BUSY} at once, whatever the
 * timeout.</li>
 * <li>Connections stay in auto-commit mode between transactions. (The driver's own
 * transaction mode would begin the next transaction right after each commit and keep the
 * write lock from other processes.)</li>
 * <li>Writes inside this process take one lock first, so they queue in the JVM instead of
 * fighting over SQLite's single write lock.</li>
 * <li>A write that still finds the database busy after {@code busy_timeout} is tried
 * again until {@code lockWait} has passed; only then does the caller see an error. Each
 * such retry is counted.</li>
 * <li>Before each transaction, the database file is checked to still be the one the queue
 * first opened (same file key, on Linux device and inode). An open SQLite connection to a
 * file that was deleted or replaced goes on working on the old inode, where no other
 * process sees the jobs; the queue fails loudly instead.</li>
 * </ul>
 */
public final class SqliteDatabase {

	private final DataSource dataSource;

	private final String location;

	private final Duration lockWait;

	private final ReentrantLock writeLock = new ReentrantLock(true);

	/**
	 * Held by whoever checkpoints in this process (the checkpointer thread, a writer
	 * catching up, a truncating checkpoint or {@code VACUUM}): SQLite runs one checkpoint
	 * at a time and answers a second with "busy" at once, so a truncation racing the
	 * checkpointer thread would leave the log untruncated. Taken after {@link #writeLock}
	 * by those that hold both.
	 */
	private final ReentrantLock checkpointLock = new ReentrantLock();

	private final LongAdder busyRetries = new LongAdder();

	/**
	 * The file and its key as first seen; {@link #NO_FILE} when there is nothing to
	 * check.
	 */
	private volatile FileIdentity identity;

	/**
	 * Checkpoints off the committing threads, when the connections have
	 * {@code wal_autocheckpoint} off; {@code null} when SQLite checkpoints on commit.
	 */
	private volatile WalCheckpointer checkpointer;

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

	/**
	 * How often a write found the database locked after {@code busy_timeout} and was
	 * tried again.
	 */
	public long busyRetries() {
		return this.busyRetries.sum();
	}

	/** Runs {@code work} in its own {@code BEGIN IMMEDIATE} transaction. */
	public <T> T write(String action, SqlWork<T> work) {
		long deadline = System.nanoTime() + this.lockWait.toNanos();
		long pause = 5;
		while (true) {
			this.writeLock.lock();
			try {
				T result;
				boolean checkpointerBehind;
				try (Connection connection = this.dataSource.getConnection()) {
					checkFile(connection, action);
					result = inTransaction(connection, work);
					checkpointerBehind = committed();
				}
				if (checkpointerBehind) {
					this.checkpointer.catchUp();
				}
				return result;
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
	 * Runs {@code work} on an auto-commit connection while holding this process's write
	 * lock: for statements that cannot run inside a transaction ({@code VACUUM}, a
	 * truncating checkpoint) but must not make this process's own writers wait on
	 * SQLite's lock. Not retried: {@code work} decides what "busy" means.
	 */
	public <T> T writeOutsideTransaction(String action, SqlWork<T> work) {
		this.writeLock.lock();
		this.checkpointLock.lock();
		try (Connection connection = this.dataSource.getConnection()) {
			StatementCache.clear(connection);
			return work.run(connection);
		}
		catch (SQLException ex) {
			throw SqliteErrors.translate(ex, action, this.location);
		}
		finally {
			this.checkpointLock.unlock();
			this.writeLock.unlock();
		}
	}

	/**
	 * Runs {@code work} in the caller's Spring transaction when one is active on this
	 * DataSource, else in its own transaction. In the caller's transaction, a lock
	 * conflict is the caller's to resolve: it surfaces as one of Spring's transient
	 * {@link org.springframework.dao.PessimisticLockingFailureException}s that say to
	 * retry the transaction, not as a queue error.
	 * @param afterCommit run once the work is committed
	 */
	public <T> T writeJoiningTransaction(String action, SqlWork<T> work, Runnable afterCommit) {
		return writeJoiningTransaction(action, work, (result) -> afterCommit.run());
	}

	/**
	 * Like {@link #writeJoiningTransaction(String, SqlWork, Runnable)}, with the
	 * committed result handed to {@code afterCommit}.
	 */
	public <T> T writeJoiningTransaction(String action, SqlWork<T> work, Consumer<? super T> afterCommit) {
		if (joinsCallerTransaction()) {
			Connection connection = DataSourceUtils.getConnection(this.dataSource);
			try {
				if (DataSourceUtils.isConnectionTransactional(connection, this.dataSource)) {
					T result = work.run(connection);
					registerAfterCommit(() -> {
						committed();
						afterCommit.accept(result);
					});
					return result;
				}
			}
			catch (SQLException ex) {
				throw SqliteErrors.translateInCallerTransaction(ex, action, this.location);
			}
			finally {
				DataSourceUtils.releaseConnection(connection, this.dataSource);
			}
		}
		T result = write(action, work);
		afterCommit.accept(result);
		return result;
	}

	/**
	 * Whether the calling thread is in a Spring transaction on this database, which queue
	 * writes then join.
	 */
	public boolean joinsCallerTransaction() {
		return TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.getResource(this.dataSource) != null;
	}

	/**
	 * Whether the calling thread is in a Spring transaction that this database cannot
	 * join (one on another database) and that accepts callbacks on its completion.
	 */
	public boolean inOtherTransaction() {
		return TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.isSynchronizationActive()
				&& TransactionSynchronizationManager.getResource(this.dataSource) == null;
	}

	/** Runs read-only {@code work} on an auto-commit connection. */
	public <T> T read(String action, SqlWork<T> work) {
		try (Connection connection = this.dataSource.getConnection()) {
			checkFile(connection, action);
			return work.run(connection);
		}
		catch (SQLException ex) {
			throw SqliteErrors.translate(ex, action, this.location);
		}
	}

	/**
	 * Fails if the database file is gone from its path or another file took its place
	 * since the queue first used it. Costs one {@code stat} per transaction.
	 */
	private void checkFile(Connection connection, String action) throws SQLException {
		FileIdentity known = this.identity;
		if (known == null) {
			known = identify(connection);
			if (known.file() != null && !autoCheckpoints(connection)) {
				this.checkpointer = new WalCheckpointer(this.dataSource, this.location, this.writeLock,
						this.checkpointLock);
			}
			this.identity = known;
		}
		if (known.file() == null) {
			return;
		}
		Object key;
		try {
			key = Files.readAttributes(known.file(), BasicFileAttributes.class).fileKey();
		}
		catch (NoSuchFileException ex) {
			throw new JobQueueException("Could not " + action + " (database " + this.location + "): the database file "
					+ known.file() + " was deleted or moved while the application ran. The queue's open connections "
					+ "would go on writing to the old file, where no other process sees the jobs, so it writes nothing "
					+ "instead. Move the file back to resume, or restore it and restart the application.");
		}
		catch (IOException ex) {
			return;
		}
		if (!known.key().equals(key)) {
			throw new JobQueueException("Could not " + action + " (database " + this.location + "): the database file "
					+ known.file() + " was replaced by another file while the application ran; the queue's open "
					+ "connections still point at the old one, so it writes nothing. Restart the application to use "
					+ "the file now at that path.");
		}
	}

	/**
	 * @return whether the checkpointer thread is so far behind that the writer, still
	 * holding the write lock, must checkpoint ({@link WalCheckpointer#catchUp})
	 */
	private boolean committed() {
		WalCheckpointer wal = this.checkpointer;
		return wal != null && wal.committed();
	}

	/**
	 * Checkpoints run on the checkpointer thread so far: 0 when the connections
	 * checkpoint in their commits (SQLite's {@code wal_autocheckpoint}).
	 */
	public long backgroundCheckpoints() {
		WalCheckpointer wal = this.checkpointer;
		return (wal != null) ? wal.checkpoints() : 0;
	}

	/**
	 * Whether SQLite checkpoints on commit on this connection ({@code wal_autocheckpoint}
	 * above 0), or the log is not a WAL.
	 */
	private static boolean autoCheckpoints(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			return !"wal".equalsIgnoreCase(Pragmas.text(statement, "journal_mode"))
					|| Pragmas.number(statement, "wal_autocheckpoint") > 0;
		}
	}

	private static FileIdentity identify(Connection connection) throws SQLException {
		try {
			Path file = SqliteDataSources.fileOf(connection.getMetaData().getURL());
			Object key = (file != null) ? Files.readAttributes(file, BasicFileAttributes.class).fileKey() : null;
			return (key != null) ? new FileIdentity(file, key) : NO_FILE;
		}
		catch (IllegalArgumentException | IOException ex) {
			return NO_FILE;
		}
	}

	private static final FileIdentity NO_FILE = new FileIdentity(null, null);

	private record FileIdentity(Path file, Object key) {
	}

	private <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
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
				// A statement that took part in a failed transaction may be left unusable
				// by the driver (after SQLITE_FULL, say): prepare every statement anew.
				clearStatementCache(connection);
				if (!rollbackQuietly(connection)) {
					discard(connection);
				}
			}
		}
	}

	private static void clearStatementCache(Connection connection) {
		try {
			StatementCache.clear(connection);
		}
		catch (SQLException | RuntimeException ex) {
			// The connection is going away: its statements go with it.
		}
	}

	/**
	 * @return whether the connection is surely out of its transaction
	 */
	private static boolean rollbackQuietly(Connection connection) {
		try (Statement statement = connection.createStatement()) {
			statement.execute("ROLLBACK");
			return true;
		}
		catch (SQLException ex) {
			// SQLite may have rolled back by itself (after some errors it does); if it
			// did not, the
			// connection still holds the write lock.
			return !isInTransaction(ex);
		}
	}

	private static boolean isInTransaction(SQLException rollbackFailure) {
		String message = rollbackFailure.getMessage();
		return message == null || !message.contains("no transaction is active");
	}

	/**
	 * Closes the physical connection of a transaction that could not be rolled back, so
	 * it releases the write lock now instead of keeping it, idle in the pool, from every
	 * other connection and process (closing a SQLite connection rolls its transaction
	 * back), and evicts it from a Hikari pool so it is not handed out again.
	 */
	private void discard(Connection connection) {
		try {
			connection.unwrap(SQLiteConnection.class).close();
		}
		catch (SQLException | RuntimeException ex) {
			// Not a SQLite connection underneath, or closed already.
		}
		try {
			if (this.dataSource.isWrapperFor(HikariDataSource.class)) {
				Connection pooled = (connection instanceof ProxyConnection) ? connection
						: connection.unwrap(ProxyConnection.class);
				this.dataSource.unwrap(HikariDataSource.class).evictConnection(pooled);
			}
		}
		catch (SQLException | RuntimeException ex) {
			// The pool finds the closed connection when it next validates it.
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
			throw new JobQueueException("Interrupted while waiting for the queue database lock", ex);
		}
	}

}
