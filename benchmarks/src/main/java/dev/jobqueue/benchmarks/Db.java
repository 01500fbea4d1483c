package dev.jobqueue.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;

import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteSchema;

/**
 * One benchmark database: a file (on disk or tmpfs) with the queue's schema applied by
 * {@link SqliteSchema}, or a shared-cache in-memory database. The queue refuses a
 * database that cannot use WAL, which an in-memory one cannot, so there Flyway applies
 * the same migrations directly; everything else is identical.
 */
final class Db implements AutoCloseable {

	static final Tables TABLES = SqliteDialect.tables("");

	static final Duration BUSY_TIMEOUT = Duration.ofSeconds(5);

	private static final AtomicInteger counter = new AtomicInteger();

	/** See {@link Options#urlParameters}. */
	static volatile String urlParameters = "";

	final String label;

	final String url;

	final String synchronous;

	final Path file;

	/** Keeps an in-memory database alive while the benchmark uses it. */
	private final Connection keeper;

	private Db(String label, String url, String synchronous, Path file, boolean migrate) {
		this.label = label;
		this.url = url;
		this.synchronous = synchronous;
		this.file = file;
		try {
			this.keeper = (file == null) ? connect() : null;
			if (!migrate) {
				return;
			}
			if (file == null) {
				migrateInMemory(this.keeper);
			}
			else {
				try (HikariDataSource pool = SqliteDataSources.create(url, BUSY_TIMEOUT, synchronous, 1)) {
					new SqliteSchema(pool, TABLES).initialize();
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create benchmark database " + url + ": " + ex.getMessage(), ex);
		}
	}

	/** A new, migrated database file in {@code directory}. */
	static Db file(Path directory, String name, String synchronous) {
		Path file = directory.resolve(name + "-" + counter.incrementAndGet() + ".db");
		String parameters = urlParameters.isEmpty() ? "" : "?" + urlParameters;
		return new Db(name, "jdbc:sqlite:" + file + parameters, synchronous, file, true);
	}

	/** A database file another process created and migrated. */
	static Db existing(Path file) {
		return new Db("enqueuer", "jdbc:sqlite:" + file, "NORMAL", file, false);
	}

	/** A new, migrated in-memory database, shared by every connection of this process. */
	static Db memory(String name) {
		String url = "jdbc:sqlite:file:jqbench" + counter.incrementAndGet() + "?mode=memory&cache=shared";
		return new Db(name, url, "NORMAL", null, true);
	}

	boolean inMemory() {
		return this.file == null;
	}

	/**
	 * A pool as the queue builds it. One connection for an in-memory database
	 * (shared-cache tables lock).
	 */
	HikariDataSource pool() {
		return SqliteDataSources.create(this.url, BUSY_TIMEOUT, this.synchronous, inMemory() ? 1 : 4);
	}

	/** A plain JDBC connection with the same pragmas as the queue's connections. */
	Connection connect() throws SQLException {
		return DriverManager.getConnection(this.url,
				SqliteDataSources.connectionConfig(BUSY_TIMEOUT, this.synchronous).toProperties());
	}

	long count(String sql) {
		try (Connection connection = connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(sql)) {
			rows.next();
			return rows.getLong(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Drops every index of the job, attempt and event tables but their primary keys and
	 * the partial pending index the raw claim reads (by type): the lean tables of the raw
	 * ceiling baselines.
	 */
	Db leanTables() {
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			List<String> indexes = new ArrayList<>();
			try (ResultSet rows = statement.executeQuery("SELECT name FROM sqlite_master WHERE type = 'index' "
					+ "AND sql IS NOT NULL AND tbl_name IN ('jobs', 'job_attempts', 'job_events') "
					+ "AND name <> 'jobs_claim_type_idx'")) {
				while (rows.next()) {
					indexes.add(rows.getString(1));
				}
			}
			for (String index : indexes) {
				statement.execute("DROP INDEX " + index);
			}
			return this;
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	long pendingOrRunning() {
		return count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')");
	}

	/**
	 * Inserts {@code count} due pending jobs with their ENQUEUED events, the rows an
	 * enqueue writes, in a few set-based statements.
	 */
	void seedPending(String type, int count) {
		seed(count, """
				INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at)
				WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
				SELECT ?, 'pending', 0, '{"n":' || i || '}', 3, ?, ? FROM n
				""", type,
				"INSERT INTO job_events (job_id, at, event) SELECT id, created_at, 'ENQUEUED' FROM jobs WHERE id > ?");
	}

	/**
	 * Inserts {@code count} succeeded jobs with their attempt row and ENQUEUED, CLAIMED
	 * and SUCCEEDED events, the rows a finished job leaves behind.
	 */
	void seedFinished(String type, int count) {
		seed(count, """
				INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at, started_at,
				                  finished_at, worker_id, attempts, runs)
				WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
				SELECT ?, 'succeeded', 0, '{"n":' || i || '}', 3, ?, ?, ?, ?, 'seed-worker', 1, 1 FROM n
				""", type,
				"""
						INSERT INTO job_attempts (job_id, run, attempt, worker_id, started_at, finished_at, outcome)
						SELECT id, 1, 1, 'seed-worker', started_at, finished_at, 'SUCCEEDED' FROM jobs WHERE id > ?1;
						INSERT INTO job_events (job_id, at, event) SELECT id, created_at, 'ENQUEUED' FROM jobs WHERE id > ?1;
						INSERT INTO job_events (job_id, at, event, actor) SELECT id, started_at, 'CLAIMED', worker_id FROM jobs WHERE id > ?1;
						INSERT INTO job_events (job_id, at, event, actor) SELECT id, finished_at, 'SUCCEEDED', worker_id FROM jobs WHERE id > ?1
						""");
	}

	/** Runs one statement with the given parameters in its own transaction. */
	void execute(String sql, Object... parameters) {
		try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < parameters.length; i++) {
				statement.setObject(i + 1, parameters[i]);
			}
			statement.executeUpdate();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not run " + sql + ": " + ex.getMessage(), ex);
		}
	}

	private void seed(int count, String insertJobs, String type, String followUps) {
		long now = System.currentTimeMillis();
		try (Connection connection = connect(); Statement statement = connection.createStatement()) {
			statement.execute("BEGIN IMMEDIATE");
			long before;
			try (ResultSet rows = statement.executeQuery("SELECT coalesce(max(id), 0) FROM jobs")) {
				rows.next();
				before = rows.getLong(1);
			}
			try (PreparedStatement insert = connection.prepareStatement(insertJobs)) {
				insert.setInt(1, count);
				insert.setString(2, type);
				int parameters = insert.getParameterMetaData().getParameterCount();
				for (int i = 3; i <= parameters; i++) {
					insert.setLong(i, now - 1_000);
				}
				insert.executeUpdate();
			}
			for (String sql : followUps.split(";")) {
				try (PreparedStatement followUp = connection.prepareStatement(sql.strip())) {
					followUp.setLong(1, before);
					followUp.executeUpdate();
				}
			}
			statement.execute("COMMIT");
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not seed " + count + " jobs: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Migrates an in-memory database with the queue's own migrations (SQL and Java) run
	 * by Flyway as {@link SqliteSchema} configures it, on the connection that keeps the
	 * database alive: only the WAL check of {@link SqliteSchema} is left out.
	 */
	private static void migrateInMemory(Connection connection) {
		Flyway.configure(Db.class.getClassLoader())
			.dataSource(new SingleConnectionDataSource(connection, true))
			.table(TABLES.schemaHistory())
			.locations(SqliteSchema.MIGRATION_LOCATION)
			.placeholders(Map.of("prefix", TABLES.prefix()))
			.load()
			.migrate();
	}

	@Override
	public void close() {
		try {
			if (this.keeper != null) {
				this.keeper.close();
			}
		}
		catch (SQLException ex) {
			// closing a benchmark database: nothing to do about it
		}
	}

	/** Deletes the file and its WAL and shared-memory siblings. */
	void delete() {
		if (this.file == null) {
			return;
		}
		for (String suffix : new String[] { "", "-wal", "-shm", ".migration-lock" }) {
			try {
				Files.deleteIfExists(this.file.resolveSibling(this.file.getFileName() + suffix));
			}
			catch (IOException ex) {
				// a left-over temp file is not worth failing a benchmark for
			}
		}
	}

}
