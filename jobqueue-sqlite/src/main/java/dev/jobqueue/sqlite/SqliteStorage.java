package dev.jobqueue.sqlite;

import java.util.Objects;
import java.util.Optional;

import dev.jobqueue.core.store.EnqueueVisibility;
import dev.jobqueue.core.store.FileMaintenance;
import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.jdbc.JdbcScheduleStore;
import dev.jobqueue.jdbc.Tables;

/**
 * The queue on one SQLite database: its job, schedule and retention stores and insights
 * share the database.
 */
public final class SqliteStorage implements QueueStorage {

	private final SqliteDatabase database;

	private final SqliteSchema schema;

	private final SqliteJobStore jobs;

	private final SqliteJobAdminStore admin;

	private final JdbcScheduleStore schedules;

	private final SqliteRetentionStore retention;

	private final SqliteQueueInsights insights;

	public SqliteStorage(SqliteDatabase database, Tables tables) {
		this(database, tables, false, EnqueueVisibility.AFTER_COMMIT);
	}

	/**
	 * @param shared whether the database is the application's, whose transactions queue
	 * writes join
	 * @param visibility when a job enqueued in a transaction on another database becomes
	 * visible to workers
	 */
	public SqliteStorage(SqliteDatabase database, Tables tables, boolean shared, EnqueueVisibility visibility) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		Objects.requireNonNull(tables, "'tables' must not be null");
		this.schema = new SqliteSchema(database.dataSource(), tables, shared);
		this.jobs = new SqliteJobStore(database, tables, visibility);
		this.admin = new SqliteJobAdminStore(database, tables);
		this.schedules = new JdbcScheduleStore(database, tables, this.jobs::insertJobs);
		this.retention = new SqliteRetentionStore(database, tables);
		this.insights = new SqliteQueueInsights(database, tables);
	}

	public SqliteDatabase database() {
		return this.database;
	}

	@Override
	public String description() {
		return this.database.location();
	}

	@Override
	public void initializeSchema() {
		this.schema.initialize();
	}

	@Override
	public void verifySchema() {
		this.schema.verify();
	}

	@Override
	public SqliteJobStore jobs() {
		return this.jobs;
	}

	@Override
	public SqliteJobAdminStore admin() {
		return this.admin;
	}

	@Override
	public JdbcScheduleStore schedules() {
		return this.schedules;
	}

	@Override
	public SqliteRetentionStore retention() {
		return this.retention;
	}

	/** Checkpoints and free pages of the file: the SQLite store looks after its file. */
	@Override
	public Optional<FileMaintenance> fileMaintenance() {
		return Optional.of(this.retention.files());
	}

	@Override
	public SqliteQueueInsights insights() {
		return this.insights;
	}

	@Override
	public long lockRetries() {
		return this.database.busyRetries();
	}

}
