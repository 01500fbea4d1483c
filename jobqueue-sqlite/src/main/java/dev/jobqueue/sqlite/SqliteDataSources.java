package dev.jobqueue.sqlite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;

import dev.jobqueue.JobQueueException;

/**
 * Builds the queue's own connection pool for a SQLite file. The pragmas every connection
 * needs are driver properties, so the driver applies them to each new connection (an init
 * SQL would run only its first statement). Pooled connections open the file without
 * {@code CREATE}: if the file is deleted or moved while the application runs, the queue
 * reports it instead of quietly starting over with an empty file.
 */
public final class SqliteDataSources {

	private static final Logger logger = LoggerFactory.getLogger(SqliteDataSources.class);

	private SqliteDataSources() {
	}

	/** The pragmas of every queue connection. */
	public static SQLiteConfig connectionConfig(Duration busyTimeout, String synchronous) {
		SQLiteConfig config = new SQLiteConfig();
		config.setJournalMode(SQLiteConfig.JournalMode.WAL);
		config.setSynchronous(SQLiteConfig.SynchronousMode.valueOf(synchronous.toUpperCase(java.util.Locale.ROOT)));
		config.setBusyTimeout((int) Math.min(Integer.MAX_VALUE, busyTimeout.toMillis()));
		config.enforceForeignKeys(true);
		config.setJournalSizeLimit(64 * 1024 * 1024);
		return config;
	}

	/**
	 * A pool on the file of {@code url} ({@code jdbc:sqlite:path}), creating the file and
	 * its folder if they do not exist yet.
	 */
	public static HikariDataSource create(String url, Duration busyTimeout, String synchronous, int poolSize) {
		SQLiteConfig config = connectionConfig(busyTimeout, synchronous);
		Path file = fileOf(url);
		if (file != null) {
			createIfMissing(url, file, config);
			config.resetOpenMode(SQLiteOpenMode.CREATE);
		}
		HikariConfig hikari = new HikariConfig();
		hikari.setPoolName("jobqueue");
		hikari.setDriverClassName("org.sqlite.JDBC");
		hikari.setJdbcUrl(url);
		hikari.setMaximumPoolSize(poolSize);
		hikari.setMinimumIdle(1);
		// Writes queue on an in-process lock, not on the pool: a long wait for a
		// connection means the file is gone.
		hikari.setConnectionTimeout(10_000);
		hikari.setDataSourceProperties(config.toProperties());
		// The queue's writes checkpoint on a thread of their own (WalCheckpointer), not
		// in
		// the commit of an enqueue or a claim.
		hikari.setConnectionInitSql("PRAGMA wal_autocheckpoint=0");
		return new HikariDataSource(hikari);
	}

	/**
	 * The file of a {@code jdbc:sqlite:} URL, or {@code null} for an in-memory database.
	 */
	public static Path fileOf(String url) {
		if (url == null || !url.startsWith("jdbc:sqlite:")) {
			throw new IllegalArgumentException("jobqueue.datasource.url must be a SQLite JDBC URL such as "
					+ "jdbc:sqlite:/var/lib/myapp/jobs.db, got '" + url + "'");
		}
		String path = url.substring("jdbc:sqlite:".length());
		int query = path.indexOf('?');
		if (query >= 0) {
			path = path.substring(0, query);
		}
		if (path.startsWith("file:")) {
			path = path.substring("file:".length());
		}
		if (path.isEmpty() || path.equals(":memory:") || path.contains("mode=memory")) {
			return null;
		}
		return Path.of(path).toAbsolutePath();
	}

	private static void createIfMissing(String url, Path file, SQLiteConfig config) {
		if (Files.isDirectory(file)) {
			throw new JobQueueException("The queue database " + file + " is a folder, not a file: the SQLite URL "
					+ "must name the database file itself. Name a file in that folder, for example " + "jdbc:sqlite:"
					+ file.resolve("jobs.db") + ", in jobqueue.datasource.url (or spring.datasource.url "
					+ "when the queue shares the application's DataSource).");
		}
		if (Files.exists(file)) {
			return;
		}
		Path migrationLock = file.resolveSibling(file.getFileName() + ".migration-lock");
		if (Files.exists(migrationLock)) {
			throw new JobQueueException("The queue database " + file + " is missing, but " + migrationLock + " shows "
					+ "that a queue lived there: the file was deleted or moved, or its disk is not mounted. Refusing "
					+ "to start over with an empty queue. Restore the file, fix jobqueue.datasource.url, or delete "
					+ migrationLock.getFileName() + " to start with an empty queue on purpose.");
		}
		Path folder = file.getParent();
		if (folder != null && !Files.isDirectory(folder)) {
			// Created, as a first start on a new host needs, but said: a typo in the
			// folder
			// would otherwise start an empty queue somewhere unexpected without a word.
			try {
				Files.createDirectories(folder);
			}
			catch (IOException ex) {
				throw new JobQueueException("Could not create the folder " + folder + " of the queue database "
						+ file.getFileName() + ": " + whyNotCreated(folder, ex) + ". Fix that, create the folder "
						+ "yourself, or set jobqueue.datasource.url to a file in a writable folder.", ex);
			}
			logger.warn(
					"Created the folder {} for the new queue database {}: it did not exist. If the queue "
							+ "should have found an existing database, check jobqueue.datasource.url.",
					folder, file.getFileName());
		}
		try (Connection connection = DriverManager.getConnection(url, config.toProperties())) {
			connection.isValid(1);
		}
		catch (SQLException ex) {
			throw new JobQueueException("Could not create the queue database " + file + ": " + ex.getMessage()
					+ ". Check that its folder exists or can be created and is writable, or set "
					+ "jobqueue.datasource.url to a writable place.", ex);
		}
	}

	/**
	 * Why {@code folder} could not be created, from the nearest part of its path that
	 * exists: a file where a folder should be, a folder this process may not write in,
	 * else what the file system said.
	 */
	static String whyNotCreated(Path folder, IOException ex) {
		Path existing = folder;
		while (existing != null && !Files.exists(existing)) {
			existing = existing.getParent();
		}
		if (existing != null && !Files.isDirectory(existing)) {
			return "a file named " + existing + " exists where a folder should be (move or delete it, or choose "
					+ "another path)";
		}
		if (existing != null && !Files.isWritable(existing)) {
			return "permission denied on " + existing + ", which this process may not write in (run as a user who "
					+ "may, or change its permissions)";
		}
		String reason = ex.getMessage();
		return ex.getClass().getSimpleName() + ((reason != null) ? " " + reason : "");
	}

	/** Whether a DataSource is SQLite, judged from a connection's metadata. */
	public static boolean isSqlite(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			return "SQLite".equalsIgnoreCase(connection.getMetaData().getDatabaseProductName());
		}
		catch (SQLException ex) {
			return false;
		}
	}

}
