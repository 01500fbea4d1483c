package dev.jobqueue.postgresql.testing;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;

import dev.jobqueue.core.store.ScheduleStore;
import dev.jobqueue.jdbc.CallerTransactions;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.PostgresDataSources;
import dev.jobqueue.postgresql.PostgresDatabase;
import dev.jobqueue.postgresql.PostgresDialect;
import dev.jobqueue.postgresql.PostgresJobAdminStore;
import dev.jobqueue.postgresql.PostgresJobStore;
import dev.jobqueue.postgresql.PostgresQueueInsights;
import dev.jobqueue.postgresql.PostgresRetentionStore;
import dev.jobqueue.postgresql.PostgresSchema;
import dev.jobqueue.postgresql.PostgresStorage;
import dev.jobqueue.testing.RawSql;
import dev.jobqueue.testing.StoreFixture;

/**
 * A database of its own on the test server, created for one test and dropped after it,
 * with a migrated queue on it. Names carry the process id and a random part, so builds
 * running at once never share one. The PostgreSQL fixture of the behaviour suite
 * (instants are {@code timestamptz} in raw SQL).
 *
 * <p>
 * Migrating takes a second or two on a busy server, so the queue's migrations run once
 * per JVM (and schema and prefix) into a template database, and each test's database is a
 * copy of it ({@code CREATE DATABASE ... TEMPLATE}): the same tables and the same
 * migration history, made by the real migrations, at the price of a file copy. The copy
 * is used as it is, listening for notifications as a started store does: the start-up
 * migration, which would only find the schema up to date (and costs as much as the copy:
 * Flyway reads and checks every migration), runs where the template is made and where
 * another process opens the database ({@link #anotherProcess()}, {@link #open}). Tests of
 * the migrations themselves start from {@link #createDatabase()}, an empty database.
 */
public final class PostgresTestDatabase implements StoreFixture {

	private static final AtomicInteger counter = new AtomicInteger();

	/** Migrated databases to copy, by schema and prefix; dropped when the JVM exits. */
	private static final Map<List<String>, String> templates = new HashMap<>();

	private final String name;

	private final HikariDataSource dataSource;

	private final PostgresStorage storage;

	private final String schema;

	private final String prefix;

	/** Whether closing drops the database: false for {@link #anotherProcess()}. */
	private final boolean owner;

	private PostgresTestDatabase(String name, String schema, String prefix, int poolSize, boolean owner) {
		this(name, schema, prefix, poolSize, owner, CallerTransactions.NONE, true);
	}

	/**
	 * @param migrate whether the store starts as an application's does, migrating; a copy
	 * of the template only listens
	 */
	private PostgresTestDatabase(String name, String schema, String prefix, int poolSize, boolean owner,
			CallerTransactions callerTransactions, boolean migrate) {
		this.name = name;
		this.schema = schema;
		this.prefix = prefix;
		this.owner = owner;
		this.dataSource = PostgresDataSources.create(url(), null, null, poolSize);
		Tables tables = PostgresDialect.tables(schema, prefix);
		this.storage = new PostgresStorage(new PostgresDatabase(this.dataSource,
				PostgresDataSources.withoutCredentials(url()), callerTransactions), tables);
		if (migrate) {
			this.storage.initializeSchema();
		}
		else {
			this.storage.notifications().start();
		}
	}

	public static PostgresTestDatabase create() {
		return create(null, "", 8);
	}

	public static PostgresTestDatabase create(String schema, String prefix, int poolSize) {
		String name = newName("jobqueue_test_");
		execute("CREATE DATABASE " + name + " TEMPLATE " + template(schema, prefix));
		try {
			return new PostgresTestDatabase(name, schema, prefix, poolSize, true, CallerTransactions.NONE, false);
		}
		catch (RuntimeException ex) {
			dropDatabase(name);
			throw ex;
		}
	}

	/**
	 * The database this JVM copies for a queue in {@code schema} with {@code prefix},
	 * migrated the first time it is asked for. Nobody stays connected to it: PostgreSQL
	 * copies only a database nobody uses.
	 */
	private static synchronized String template(String schema, String prefix) {
		List<String> key = Arrays.asList(schema, prefix);
		String template = templates.get(key);
		if (template == null) {
			template = newName("jobqueue_template_");
			execute("CREATE DATABASE " + template);
			try {
				new PostgresTestDatabase(template, schema, prefix, 2, false).close();
			}
			catch (RuntimeException ex) {
				dropDatabase(template);
				throw ex;
			}
			if (templates.isEmpty()) {
				Runtime.getRuntime()
					.addShutdownHook(new Thread(PostgresTestDatabase::dropTemplates, "drop-template-databases"));
			}
			templates.put(key, template);
		}
		return template;
	}

	private static synchronized void dropTemplates() {
		templates.values().forEach(PostgresTestDatabase::dropDatabase);
		templates.clear();
	}

	/**
	 * Migrates the queue's schema in {@code dataSource} up to {@code version} only (all
	 * migrations when {@code null}), as an older version of the queue left it: the start
	 * of each migration test.
	 */
	public static void migrateTo(DataSource dataSource, Tables tables, String version) {
		var configuration = Flyway.configure(PostgresTestDatabase.class.getClassLoader())
			.dataSource(dataSource)
			.schemas(tables.schema())
			.defaultSchema(tables.schema())
			.createSchemas(true)
			.table(tables.schemaHistory())
			.locations(PostgresSchema.MIGRATION_LOCATION)
			.placeholders(Map.of("prefix", tables.prefix()));
		if (version != null) {
			configuration.target(version);
		}
		configuration.load().migrate();
	}

	/**
	 * Creates an empty database and returns its name; the caller drops it with
	 * {@link #dropDatabase}.
	 */
	public static String createDatabase() {
		String name = newName("jobqueue_test_");
		execute("CREATE DATABASE " + name);
		return name;
	}

	private static String newName(String prefix) {
		return prefix + ManagementFactory.getRuntimeMXBean().getPid() + "_" + counter.incrementAndGet() + "_"
				+ Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0xfffff));
	}

	public static void dropDatabase(String name) {
		execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
	}

	private static void execute(String sql) {
		try (Connection connection = PostgresServer.connectAdmin();
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql + ": " + ex.getMessage(), ex);
		}
	}

	public String name() {
		return this.name;
	}

	public String url() {
		return PostgresServer.urlOf(this.name);
	}

	public HikariDataSource dataSource() {
		return this.dataSource;
	}

	public PostgresStorage storage() {
		return this.storage;
	}

	@Override
	public PostgresJobStore store() {
		return this.storage.jobs();
	}

	@Override
	public PostgresJobAdminStore admin() {
		return this.storage.admin();
	}

	@Override
	public ScheduleStore schedules() {
		return this.storage.schedules();
	}

	@Override
	public PostgresQueueInsights insights() {
		return this.storage.insights();
	}

	@Override
	public PostgresRetentionStore retention() {
		return this.storage.retention();
	}

	/**
	 * A pool, stores and listener of its own on the same database and schema: another
	 * process.
	 */
	@Override
	public PostgresTestDatabase anotherProcess() {
		return new PostgresTestDatabase(this.name, this.schema, this.prefix, 4, false);
	}

	/**
	 * The database {@code name} made by another fixture (in another JVM), with a pool of
	 * {@code poolSize}; closing it leaves the database.
	 */
	public static PostgresTestDatabase open(String name, int poolSize) {
		return new PostgresTestDatabase(name, null, "", poolSize, false);
	}

	/**
	 * As {@link #open(String, int)}, as an application sharing the database opens it:
	 * queue writes join the caller's transactions.
	 */
	public static PostgresTestDatabase openShared(String name, int poolSize, CallerTransactions callerTransactions) {
		return new PostgresTestDatabase(name, null, "", poolSize, false, callerTransactions, true);
	}

	@Override
	public Object timestamp(Instant instant) {
		return Timestamp.from(instant);
	}

	@Override
	public void beforeNextTake(ConnectionWork change) {
		store().beforeNextTake(change::run);
	}

	/** The first column of each row of a query. */
	public List<Object> column(String sql, Object... args) {
		return RawSql.column(this.dataSource, sql, args);
	}

	public void execute(String sql, Object... args) {
		RawSql.execute(this.dataSource, sql, args);
	}

	@Override
	public void close() {
		this.storage.close();
		this.dataSource.close();
		if (this.owner) {
			dropDatabase(this.name);
		}
	}

}
