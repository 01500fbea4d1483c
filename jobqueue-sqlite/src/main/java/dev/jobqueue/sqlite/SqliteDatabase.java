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
import java.util.concurrent.locks.ReentrantLock;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.ProxyConnection;
import org.sqlite.SQLiteConnection;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.CallerTransactions;
import dev.jobqueue.jdbc.JdbcDatabase;
import dev.jobqueue.jdbc.SqlWork;

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
 * such retry is counted ({@link #retries()}).</li>
 * <li>Before each transaction, the database file is checked to still be the one the queue
 * first opened (same file key, on Linux device and inode). An open SQLite connection to a
 * file that was deleted or replaced goes on working on the old inode, where no other
 * process sees the jobs; the queue fails loudly instead.</li>
 * </ul>
 */
public final class SqliteDatabase extends JdbcDatabase {

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
		this(dataSource, location, lockWait, CallerTransactions.NONE);
	}

	/**
	 * @param callerTransactions the application's transactions, which writes on a shared
	 * DataSource join
	 */
	public SqliteDatabase(DataSource dataSource, String location, Duration lockWait,
			CallerTransactions callerTransactions) {
		super(dataSource, location, callerTransactions);
		this.lockWait = Objects.requireNonNull(lockWait, "'lockWait' must not be null");
	}

	/**
	 * How often a write found the database locked after {@code busy_timeout} and was
	 * tried again.
	 */
	public long busyRetries() {
		return retries();
	}

	@Override
	protected <T> T writeOnce(String action, SqlWork<T> work) throws SQLException {
		this.writeLock.lock();
		try {
			T result = super.writeOnce(action, work);
			if (committed()) {
				this.checkpointer.catchUp();
			}
			return result;
		}
		finally {
			this.writeLock.unlock();
		}
	}

	/**
	 * One read transaction: every statement sees the same state of the file (the
	 * write-ahead log keeps it), and no writer waits for it.
	 */
	@Override
	public <T> T readConsistent(String action, SqlWork<T> work) {
		return read(action, (connection) -> {
			try (Statement transaction = connection.createStatement()) {
				transaction.execute("BEGIN");
				T result;
				try {
					result = work.run(connection);
				}
				catch (SQLException | RuntimeException ex) {
					endReadQuietly(transaction);
					throw ex;
				}
				transaction.execute("COMMIT");
				return result;
			}
		});
	}

	private static void endReadQuietly(Statement transaction) {
		try {
			transaction.execute("ROLLBACK");
		}
		catch (SQLException ex) {
			// The connection is likely broken; the pool discards it.
		}
	}

	@Override
	protected boolean isWorthRetrying(SQLException ex, int attempt, long elapsedNanos) {
		return SqliteErrors.isBusy(ex) && elapsedNanos < this.lockWait.toNanos();
	}

	@Override
	protected void pauseBeforeRetry(int attempt) {
		pause(Math.min(5L << Math.min(attempt - 1, 6), 200));
	}

	@Override
	protected void beforeWrite(Connection connection, String action) throws SQLException {
		checkFile(connection, action);
	}

	@Override
	protected void beforeRead(Connection connection, String action) throws SQLException {
		checkFile(connection, action);
	}

	@Override
	protected void committedInCallerTransaction() {
		committed();
	}

	@Override
	protected JobQueueException translate(SQLException ex, String action) {
		return SqliteErrors.translate(ex, action, location());
	}

	/**
	 * A lock conflict in the caller's transaction cannot be cured by the queue (the
	 * transaction is the caller's): it becomes the caller's transient lock failure, with
	 * a message that says why.
	 */
	@Override
	protected RuntimeException translateInCallerTransaction(SQLException ex, String action) {
		if (!SqliteErrors.isBusy(ex)) {
			return translate(ex, action);
		}
		return callerTransactions().lockConflict(SqliteErrors.inCallerTransaction(ex, action, location()), ex,
				SqliteErrors.isBusySnapshot(ex));
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
		try (Connection connection = dataSource().getConnection()) {
			SqliteStatements.clear(connection);
			return work.run(connection);
		}
		catch (SQLException ex) {
			throw translate(ex, action);
		}
		finally {
			this.checkpointLock.unlock();
			this.writeLock.unlock();
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
				this.checkpointer = new WalCheckpointer(dataSource(), location(), this.writeLock, this.checkpointLock);
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
			throw new JobQueueException("Could not " + action + " (database " + location() + "): the database file "
					+ known.file() + " was deleted or moved while the application ran. The queue's open connections "
					+ "would go on writing to the old file, where no other process sees the jobs, so it writes nothing "
					+ "instead. Move the file back to resume, or restore it and restart the application.");
		}
		catch (IOException ex) {
			return;
		}
		if (!known.key().equals(key)) {
			throw new JobQueueException("Could not " + action + " (database " + location() + "): the database file "
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

	@Override
	protected <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
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
			SqliteStatements.clear(connection);
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
			if (dataSource().isWrapperFor(HikariDataSource.class)) {
				Connection pooled = (connection instanceof ProxyConnection) ? connection
						: connection.unwrap(ProxyConnection.class);
				dataSource().unwrap(HikariDataSource.class).evictConnection(pooled);
			}
		}
		catch (SQLException | RuntimeException ex) {
			// The pool finds the closed connection when it next validates it.
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
