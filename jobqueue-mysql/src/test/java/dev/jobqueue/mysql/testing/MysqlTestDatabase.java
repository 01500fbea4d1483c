package dev.jobqueue.mysql.testing;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
 */
public final class MysqlTestDatabase implements StoreFixture {

	private static final AtomicInteger counter = new AtomicInteger();

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

	private MysqlTestDatabase(String name, String prefix, int poolSize, boolean owner) {
		this(name, prefix, poolSize, owner, CallerTransactions.NONE);
	}

	private MysqlTestDatabase(String name, String prefix, int poolSize, boolean owner,
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
		this.storage.initializeSchema();
	}

	public static MysqlTestDatabase create() {
		return create("", 8);
	}

	public static MysqlTestDatabase create(String prefix, int poolSize) {
		String name = createDatabase();
		try {
			return new MysqlTestDatabase(name, prefix, poolSize, true);
		}
		catch (RuntimeException ex) {
			dropDatabase(name);
			throw ex;
		}
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
		return new MysqlTestDatabase(name, "", poolSize, false);
	}

	/**
	 * As {@link #open(String, int)}, as an application sharing the database opens it:
	 * queue writes join the caller's transactions.
	 */
	public static MysqlTestDatabase openShared(String name, int poolSize, CallerTransactions callerTransactions) {
		return new MysqlTestDatabase(name, "", poolSize, false, callerTransactions);
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
		return new MysqlTestDatabase(this.name, this.prefix, 4, false);
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

}
