package dev.jobqueue.sqlite;

import java.util.Objects;
import java.util.Optional;

import dev.jobqueue.core.store.EnqueueVisibility;
import dev.jobqueue.core.store.FileMaintenance;
import dev.jobqueue.jdbc.JdbcScheduleStore;
import dev.jobqueue.jdbc.JdbcStorage;
import dev.jobqueue.jdbc.Tables;

/**
 * The queue on one SQLite database: its job, schedule and retention stores and insights
 * share the database.
 */
public final class SqliteStorage extends
		JdbcStorage<SqliteJobStore, SqliteJobAdminStore, JdbcScheduleStore, SqliteRetentionStore, SqliteQueueInsights> {

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
		super(new SqliteJobStore(Objects.requireNonNull(database, "'database' must not be null"),
				Objects.requireNonNull(tables, "'tables' must not be null"), visibility),
				(jobs) -> new SqliteJobAdminStore(database, tables),
				(jobs) -> new JdbcScheduleStore(database, tables, jobs::insertJobs),
				new SqliteRetentionStore(database, tables), new SqliteQueueInsights(database, tables),
				new SqliteSchema(database.dataSource(), tables, shared, database.location()));
	}

	@Override
	public SqliteDatabase database() {
		return jobs().database();
	}

	/** Checkpoints and free pages of the file: the SQLite store looks after its file. */
	@Override
	public Optional<FileMaintenance> fileMaintenance() {
		return Optional.of(retention().files());
	}

}
