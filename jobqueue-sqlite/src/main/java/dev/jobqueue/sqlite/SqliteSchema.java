package dev.jobqueue.sqlite;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig.TransactionMode;
import org.sqlite.SQLiteConnection;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.JdbcSchema;
import dev.jobqueue.jdbc.Tables;

/**
 * The queue's schema in a SQLite file ({@link JdbcSchema}), and the checks that
 * connections are set up the way the queue needs.
 *
 * <ul>
 * <li>On a new file, {@code auto_vacuum=INCREMENTAL} is set before Flyway creates its
 * history table, the first table of the file: it cannot be switched on later without a
 * full {@code VACUUM}.</li>
 * <li>Processes starting at once on one file migrate one after another: each holds an
 * exclusive lock on a sibling {@code <file>.migration-lock} while it migrates, and the
 * later ones find the schema current.</li>
 * </ul>
 */
public final class SqliteSchema extends JdbcSchema {

	public static final String MIGRATION_LOCATION = "classpath:dev/jobqueue/sqlite/migration";

	private static final Logger logger = LoggerFactory.getLogger(SqliteSchema.class);

	/** How often a migration that found the database busy is tried (about 8 s in all). */
	private static final int MIGRATION_ATTEMPTS = 12;

	private final boolean shared;

	/** Where the database is, for messages: its file or URL. */
	private final String location;

	public SqliteSchema(DataSource dataSource, Tables tables) {
		this(dataSource, tables, false, "queue");
	}

	/**
	 * @param shared whether the DataSource is the application's, whose transactions queue
	 * writes join: its transactions must then begin {@code IMMEDIATE}
	 * @param location the database's file or URL, for messages
	 */
	public SqliteSchema(DataSource dataSource, Tables tables, boolean shared, String location) {
		super(dataSource, tables, MIGRATION_LOCATION);
		this.shared = shared;
		this.location = location;
	}

	@Override
	protected String checkConnection() {
		return verifyConnectionSettings();
	}

	@Override
	protected String storeModule() {
		return "jobqueue-sqlite";
	}

	@Override
	protected String elsewhere() {
		return "point jobqueue.datasource.url at another file";
	}

	@Override
	protected String migrationNote() {
		return " Copying the SQL scripts is not enough: V9 is a Java migration "
				+ "(dev.jobqueue.sqlite.migration.V9__Chains), found only on the classpath.";
	}

	/**
	 * Holds the sibling lock file while migrating, and switches incremental vacuum on
	 * first if the file is new.
	 */
	@Override
	protected void migrateExclusively(String url, Runnable migration) {
		Path file = SqliteDataSources.fileOf(url);
		try (FileLock lock = lockFor(file)) {
			enableIncrementalVacuumOnNewFile();
			migration.run();
		}
		catch (IOException ex) {
			throw new JobQueueException("Could not lock " + file + ".migration-lock to migrate the queue schema: "
					+ ex.getMessage() + ". Check that the database's folder is writable.", ex);
		}
	}

	/**
	 * Flyway's migration transaction reads the history table before it writes, so on a
	 * file that another process already uses (say, an application with another table
	 * prefix), a commit in between fails it at once with SQLITE_BUSY, whatever the busy
	 * timeout. The failed script was rolled back, so migrating again is safe.
	 */
	@Override
	protected int applyMigrations(Flyway flyway) {
		for (int attempt = 1;; attempt++) {
			try {
				return flyway.migrate().migrationsExecuted;
			}
			catch (RuntimeException ex) {
				if (attempt >= MIGRATION_ATTEMPTS || !causedByBusy(ex)) {
					throw ex;
				}
				logger.debug("Queue schema migration found the database busy (attempt {}), trying again", attempt);
				pause(Math.min(1000L, 20L << attempt));
			}
		}
	}

	private static boolean causedByBusy(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && SqliteErrors.isBusy(sql)) {
				return true;
			}
			if (cause.getMessage() != null && cause.getMessage().contains("SQLITE_BUSY")) {
				return true;
			}
		}
		return false;
	}

	private static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new JobQueueException("Interrupted while waiting to migrate the queue schema", ex);
		}
	}

	private void enableIncrementalVacuumOnNewFile() {
		try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
			boolean empty;
			try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM sqlite_master")) {
				empty = rows.next() && rows.getInt(1) == 0;
			}
			if (empty) {
				statement.execute("PRAGMA auto_vacuum = INCREMENTAL");
				statement.execute("VACUUM");
			}
		}
		catch (SQLException ex) {
			throw SqliteErrors.translate(ex, "prepare the new queue database", this.location);
		}
	}

	/**
	 * Checks WAL, foreign keys, synchronous and busy timeout on a connection of the
	 * DataSource.
	 * @return the database URL
	 */
	public String verifyConnectionSettings() {
		try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
			String url = connection.getMetaData().getURL();
			StringBuilder problems = new StringBuilder();
			String journalMode = Pragmas.text(statement, "journal_mode").toLowerCase(Locale.ROOT);
			if (!journalMode.equals("wal")) {
				problems.append("\n - journal_mode is ")
					.append(journalMode)
					.append(", the queue needs WAL (journal_mode=WAL)");
			}
			if (!Pragmas.text(statement, "foreign_keys").equals("1")) {
				problems
					.append("\n - foreign_keys is off, so deleting a job would leave its attempts and events behind "
							+ "(foreign_keys=true)");
			}
			if (Integer.parseInt(Pragmas.text(statement, "busy_timeout")) <= 0) {
				problems.append("\n - busy_timeout is 0, so any concurrent write fails at once (busy_timeout=5000)");
			}
			if (Pragmas.text(statement, "synchronous").equals("0")) {
				problems.append("\n - synchronous is OFF, so a power loss can corrupt the queue (synchronous=NORMAL)");
			}
			if (!connection.getAutoCommit()) {
				problems.append("\n - connections are handed out with auto-commit off, so every queue write would fail "
						+ "with 'cannot start a transaction within a transaction', and an idle connection holds the "
						+ "write lock (the pool's auto-commit=true, for Hikari spring.datasource.hikari.auto-commit=true)");
			}
			if (this.shared && transactionMode(connection) == TransactionMode.DEFERRED) {
				problems.append("\n - transactions begin DEFERRED. Queue writes join the application's "
						+ "transactions, and a DEFERRED transaction that has read cannot write once another "
						+ "connection (the queue's worker, say) has committed: it fails with SQLITE_BUSY_SNAPSHOT "
						+ "whatever the busy timeout (transaction_mode=IMMEDIATE)");
			}
			if (problems.length() > 0) {
				throw new JobQueueException("The queue's database connections to " + url + " are not set up as the "
						+ "queue needs:" + problems
						+ "\nThese are per-connection settings: set them as driver properties "
						+ "of the DataSource, for example spring.datasource.hikari.data-source-properties.foreign_keys=true "
						+ "or spring.datasource.hikari.data-source-properties.transaction_mode=IMMEDIATE, "
						+ "or give the queue its own file with jobqueue.datasource.url, where they are set for you.");
			}
			return url;
		}
		catch (SQLException ex) {
			throw SqliteErrors.translate(ex, "open the queue database", this.location);
		}
	}

	private static FileLock lockFor(Path file) throws IOException {
		if (file == null) {
			return null;
		}
		Path lockFile = file.resolveSibling(file.getFileName() + ".migration-lock");
		FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
		try {
			return new ChannelClosingLock(channel, channel.lock());
		}
		catch (IOException | RuntimeException ex) {
			channel.close();
			throw ex;
		}
	}

	/** A file lock that also closes its channel when released. */
	private static final class ChannelClosingLock extends FileLock {

		private final FileLock lock;

		ChannelClosingLock(FileChannel channel, FileLock lock) {
			super(channel, lock.position(), lock.size(), lock.isShared());
			this.lock = lock;
		}

		@Override
		public boolean isValid() {
			return this.lock.isValid();
		}

		@Override
		public void release() throws IOException {
			try {
				this.lock.release();
			}
			finally {
				channel().close();
			}
		}

	}

	private static TransactionMode transactionMode(Connection connection) throws SQLException {
		return connection.isWrapperFor(SQLiteConnection.class)
				? connection.unwrap(SQLiteConnection.class).getConnectionConfig().getTransactionMode()
				: TransactionMode.DEFERRED;
	}

}
