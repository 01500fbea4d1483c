package dev.jobqueue.mysql.testing;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import dev.jobqueue.core.store.ScheduleStore;
import dev.jobqueue.jdbc.CallerTransactions;
import dev.jobqueue.jdbc.JdbcJobAdminStore;
import dev.jobqueue.mysql.MysqlDataSources;
import dev.jobqueue.mysql.MysqlDatabase;
import dev.jobqueue.mysql.MysqlDialect;
import dev.jobqueue.mysql.MysqlJobStore;
import dev.jobqueue.mysql.MysqlQueueInsights;
import dev.jobqueue.mysql.MysqlRetentionStore;
import dev.jobqueue.mysql.MysqlStorage;
import dev.jobqueue.testing.RawSql;
import dev.jobqueue.testing.StoreFixture;

/**
 * A database of its own on the MariaDB test server, created for one test and dropped
 * after it, with a migrated queue in it. Names carry the process id and a random part, so
 * builds running at once never share one. The MySQL fixture of the behaviour suite
 * (instants are epoch milliseconds in raw SQL).
 *
 * <p>
 * Migrating takes a good part of a second on a busy server (each {@code ALTER TABLE}
 * copies its table), so the queue's migrations run once per JVM (and prefix) into a
 * scratch database, and each test's database gets that database's final tables
 * ({@code SHOW CREATE TABLE}, foreign keys included) and rows (the migration history):
 * the schema the real migrations made, without replaying them. The copy is used as it is:
 * the start-up migration, which would only find the schema up to date (Flyway reads and
 * checks every migration), runs where the schema is first migrated and where another
 * process opens the database ({@link #anotherProcess()}, {@link #open}). Tests of the
 * migrations themselves start from {@link #createDatabase()}, an empty database.
 */
public final class MysqlTestDatabase implements StoreFixture {

	private static final AtomicInteger counter = new AtomicInteger();

	/** What a migrated database holds, by prefix. */
	private static final Map<String, MigratedSchema> migrated = new HashMap<>();

	private final String name;

	private final String prefix;

	private final HikariDataSource dataSource;

	/**
	 * Connections for the suite's raw SQL, which is standard SQL: {@code ||} joins text
	 * ({@code PIPES_AS_CONCAT}), as it does on the other stores. The queue's own pool
	 * keeps the server's mode, so the store's statements are tested as they run.
	 */
	private final HikariDataSource rawSql;

	private final MysqlStorage storage;

	/** Whether closing drops the database: false for {@link #anotherProcess()}. */
	private final boolean owner;

	private MysqlTestDatabase(String name, String prefix, int poolSize, boolean owner, boolean migrate) {
		this(name, prefix, poolSize, owner, migrate, CallerTransactions.NONE);
	}

	/**
	 * @param migrate whether the store starts as an application's does, migrating; a copy
	 * of the migrated schema needs nothing
	 */
	private MysqlTestDatabase(String name, String prefix, int poolSize, boolean owner, boolean migrate,
			CallerTransactions callerTransactions) {
		this.name = name;
		this.prefix = prefix;
		this.owner = owner;
		this.dataSource = MysqlDataSources.create(url(), null, null, poolSize, Duration.ofSeconds(30));
		HikariConfig rawSql = new HikariConfig();
		rawSql.setJdbcUrl(url());
		rawSql.setMaximumPoolSize(2);
		rawSql.setConnectionInitSql("SET SESSION sql_mode = CONCAT(@@sql_mode, ',PIPES_AS_CONCAT')");
		this.rawSql = new HikariDataSource(rawSql);
		this.storage = new MysqlStorage(new MysqlDatabase(this.dataSource, url(), callerTransactions),
				MysqlDialect.tables(prefix));
		if (migrate) {
			this.storage.initializeSchema();
		}
	}

	public static MysqlTestDatabase create() {
		return create("", 8);
	}

	public static MysqlTestDatabase create(String prefix, int poolSize) {
		MigratedSchema schema = migrated(prefix);
		String name = createDatabase();
		try {
			schema.copyInto(name);
			return new MysqlTestDatabase(name, prefix, poolSize, true, false);
		}
		catch (RuntimeException ex) {
			dropDatabase(name);
			throw ex;
		}
	}

	/** The schema the migrations make for {@code prefix}, migrated the first time. */
	private static synchronized MigratedSchema migrated(String prefix) {
		MigratedSchema schema = migrated.get(prefix);
		if (schema == null) {
			String name = createDatabase();
			try {
				new MysqlTestDatabase(name, prefix, 2, false, true).close();
				schema = MigratedSchema.read(name);
			}
			finally {
				dropDatabase(name);
			}
			migrated.put(prefix, schema);
		}
		return schema;
	}

	/**
	 * Creates an empty database and returns its name; the caller drops it with
	 * {@link #dropDatabase}.
	 */
	public static String createDatabase() {
		String name = "jobqueue_test_" + ManagementFactory.getRuntimeMXBean().getPid() + "_" + counter.incrementAndGet()
				+ "_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0xfffff));
		execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
		return name;
	}

	public static void dropDatabase(String name) {
		execute("DROP DATABASE IF EXISTS " + name);
	}

	private static void execute(String sql) {
		try (Connection connection = MariaDbServer.connectAdmin(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * The database {@code name} made by another fixture (in another JVM), with a pool of
	 * {@code poolSize}; closing it leaves the database.
	 */
	public static MysqlTestDatabase open(String name, int poolSize) {
		return new MysqlTestDatabase(name, "", poolSize, false, true);
	}

	/**
	 * As {@link #open(String, int)}, as an application sharing the database opens it:
	 * queue writes join the caller's transactions.
	 */
	public static MysqlTestDatabase openShared(String name, int poolSize, CallerTransactions callerTransactions) {
		return new MysqlTestDatabase(name, "", poolSize, false, true, callerTransactions);
	}

	public String name() {
		return this.name;
	}

	public String url() {
		return MariaDbServer.urlOf(this.name);
	}

	public HikariDataSource dataSource() {
		return this.dataSource;
	}

	public MysqlStorage storage() {
		return this.storage;
	}

	@Override
	public MysqlJobStore store() {
		return this.storage.jobs();
	}

	@Override
	public JdbcJobAdminStore admin() {
		return this.storage.admin();
	}

	@Override
	public ScheduleStore schedules() {
		return this.storage.schedules();
	}

	@Override
	public MysqlQueueInsights insights() {
		return this.storage.insights();
	}

	@Override
	public MysqlRetentionStore retention() {
		return this.storage.retention();
	}

	/** A pool and stores of its own on the same database: another process. */
	@Override
	public MysqlTestDatabase anotherProcess() {
		return new MysqlTestDatabase(this.name, this.prefix, 4, false, true);
	}

	@Override
	public Object timestamp(Instant instant) {
		return instant.toEpochMilli();
	}

	@Override
	public void beforeNextTake(ConnectionWork change) {
		store().beforeNextTake(change::run);
	}

	/** The first column of each row of a query. */
	@Override
	public List<Object> column(String sql, Object... args) {
		return RawSql.column(this.rawSql, sql, args);
	}

	@Override
	public void execute(String sql, Object... args) {
		RawSql.execute(this.rawSql, sql, args);
	}

	@Override
	public void close() {
		this.rawSql.close();
		this.dataSource.close();
		if (this.owner) {
			dropDatabase(this.name);
		}
	}

	/**
	 * The tables of a migrated database as statements that make them again, and the rows
	 * in them (the migration history).
	 */
	private record MigratedSchema(List<String> createTables, List<Rows> rows) {

		static MigratedSchema read(String database) {
			List<String> createTables = new ArrayList<>();
			List<Rows> rows = new ArrayList<>();
			try (Connection connection = DriverManager.getConnection(MariaDbServer.urlOf(database));
					Statement statement = connection.createStatement()) {
				List<String> tables = new ArrayList<>();
				try (ResultSet names = statement.executeQuery("SELECT table_name FROM information_schema.tables "
						+ "WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' ORDER BY table_name")) {
					while (names.next()) {
						tables.add(names.getString(1));
					}
				}
				for (String table : tables) {
					try (ResultSet create = statement.executeQuery("SHOW CREATE TABLE `" + table + "`")) {
						create.next();
						createTables.add(create.getString(2));
					}
					List<String> columns = new ArrayList<>();
					try (ResultSet written = statement
						.executeQuery("SELECT column_name FROM information_schema.columns "
								+ "WHERE table_schema = DATABASE() AND table_name = '" + table + "' "
								+ "AND extra NOT LIKE '%GENERATED%' ORDER BY ordinal_position")) {
						while (written.next()) {
							columns.add("`" + written.getString(1) + "`");
						}
					}
					List<Object[]> values = new ArrayList<>();
					try (ResultSet found = statement
						.executeQuery("SELECT " + String.join(", ", columns) + " FROM `" + table + "`")) {
						while (found.next()) {
							Object[] row = new Object[columns.size()];
							for (int i = 0; i < row.length; i++) {
								row[i] = found.getObject(i + 1);
							}
							values.add(row);
						}
					}
					if (!values.isEmpty()) {
						rows.add(new Rows(table, columns, values));
					}
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Could not read the migrated database " + database, ex);
			}
			return new MigratedSchema(List.copyOf(createTables), List.copyOf(rows));
		}

		void copyInto(String database) {
			try (Connection connection = DriverManager.getConnection(MariaDbServer.urlOf(database));
					Statement statement = connection.createStatement()) {
				// The tables come in name order, not in the order their foreign keys
				// need.
				statement.execute("SET SESSION foreign_key_checks = 0");
				for (String createTable : this.createTables) {
					statement.execute(createTable);
				}
				for (Rows table : this.rows) {
					String insert = "INSERT INTO `" + table.table() + "` (" + String.join(", ", table.columns())
							+ ") VALUES (" + String.join(", ", Collections.nCopies(table.columns().size(), "?")) + ")";
					try (PreparedStatement statementOfRow = connection.prepareStatement(insert)) {
						for (Object[] row : table.values()) {
							for (int i = 0; i < row.length; i++) {
								statementOfRow.setObject(i + 1, row[i]);
							}
							statementOfRow.addBatch();
						}
						statementOfRow.executeBatch();
					}
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Could not copy the migrated schema into " + database, ex);
			}
		}

	}

	private record Rows(String table, List<String> columns, List<Object[]> values) {

	}

}
