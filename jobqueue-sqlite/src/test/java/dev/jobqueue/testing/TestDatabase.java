package dev.jobqueue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;

import dev.jobqueue.core.store.FileMaintenance;
import dev.jobqueue.core.store.ScheduleStore;
import dev.jobqueue.jdbc.CallerTransactions;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.sqlite.SqliteDatabase;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteFileMaintenance;
import dev.jobqueue.sqlite.SqliteJobAdminStore;
import dev.jobqueue.sqlite.SqliteJobStore;
import dev.jobqueue.sqlite.SqliteQueueInsights;
import dev.jobqueue.sqlite.SqliteRetentionStore;
import dev.jobqueue.sqlite.SqliteSchema;
import dev.jobqueue.sqlite.SqliteTestStores;

/**
 * A real, migrated SQLite file for a test, with the store on top; the SQLite fixture of
 * the behaviour suite (instants are epoch milliseconds in raw SQL).
 */
public final class TestDatabase implements StoreFixture {

	private final Path file;

	private final HikariDataSource dataSource;

	private final SqliteDatabase database;

	private final SqliteJobStore store;

	private final SqliteJobAdminStore admin;

	private final Tables tables;

	private TestDatabase(Path file, String prefix) {
		this(file, prefix, CallerTransactions.NONE, Duration.ofSeconds(5), 4);
	}

	private TestDatabase(Path file, String prefix, CallerTransactions callerTransactions, Duration busyTimeout,
			int poolSize) {
		this.file = file;
		this.tables = SqliteDialect.tables(prefix);
		String url = "jdbc:sqlite:" + file;
		this.dataSource = SqliteDataSources.create(url, busyTimeout, "NORMAL", poolSize);
		new SqliteSchema(this.dataSource, this.tables).initialize();
		this.database = new SqliteDatabase(this.dataSource, file.toString(), Duration.ofSeconds(30),
				callerTransactions);
		this.store = new SqliteJobStore(this.database, tables);
		this.admin = new SqliteJobAdminStore(this.database, tables);
	}

	/**
	 * Migrates a queue file up to {@code version} only, as an older version of the queue
	 * left it: the start of each migration test.
	 */
	public static void migrateFileTo(Path file, String prefix, String version) {
		Flyway.configure(TestDatabase.class.getClassLoader())
			.dataSource("jdbc:sqlite:" + file, null, null)
			.table(prefix + "jobqueue_schema_history")
			.locations(SqliteSchema.MIGRATION_LOCATION)
			.placeholders(Map.of("prefix", prefix))
			.target(version)
			.load()
			.migrate();
	}

	public static TestDatabase create(Path directory) {
		return new TestDatabase(directory.resolve("queue.db"), "");
	}

	public static TestDatabase create(Path file, String prefix) {
		return new TestDatabase(file, prefix);
	}

	/**
	 * The file as an application sharing it with the queue opens it, with a pool of
	 * {@code poolSize}: queue writes join the caller's transactions.
	 */
	public static TestDatabase openShared(Path file, CallerTransactions callerTransactions, int poolSize) {
		// The application's transactions are not retried by the queue: they wait longer.
		return new TestDatabase(file, "", callerTransactions, Duration.ofSeconds(30), poolSize);
	}

	/**
	 * A file {@code queue.db} in {@code directory}, created when missing: the behaviour
	 * suite's fixture.
	 */
	public static TestDatabase createIn(Path directory, String prefix) {
		try {
			return new TestDatabase(Files.createDirectories(directory).resolve("queue.db"), prefix);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public Path file() {
		return this.file;
	}

	public String url() {
		return "jdbc:sqlite:" + this.file;
	}

	public HikariDataSource dataSource() {
		return this.dataSource;
	}

	public SqliteDatabase database() {
		return this.database;
	}

	public SqliteJobStore store() {
		return this.store;
	}

	public SqliteJobAdminStore admin() {
		return this.admin;
	}

	@Override
	public ScheduleStore schedules() {
		return SqliteTestStores.schedules(this.store);
	}

	@Override
	public SqliteQueueInsights insights() {
		return new SqliteQueueInsights(this.database, this.tables);
	}

	@Override
	public SqliteRetentionStore retention() {
		return new SqliteRetentionStore(this.database, this.tables);
	}

	@Override
	public Optional<FileMaintenance> fileMaintenance() {
		return Optional.of(new SqliteFileMaintenance(this.database));
	}

	/**
	 * A connection pool and write lock of its own on the same file: another process, as
	 * SQLite sees it.
	 */
	@Override
	public TestDatabase anotherProcess() {
		return new TestDatabase(this.file, this.tables.prefix());
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
	public List<Object> column(String sql, Object... args) {
		return RawSql.column(this.dataSource, sql, args);
	}

	public void execute(String sql, Object... args) {
		RawSql.execute(this.dataSource, sql, args);
	}

	@Override
	public void close() {
		this.dataSource.close();
	}

}
