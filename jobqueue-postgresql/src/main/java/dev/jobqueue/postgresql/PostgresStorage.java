package dev.jobqueue.postgresql;

import java.util.Objects;

import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.jdbc.JdbcScheduleStore;
import dev.jobqueue.jdbc.JdbcStorage;
import dev.jobqueue.jdbc.Tables;

/**
 * The queue on one PostgreSQL database: its job, schedule and retention stores and
 * insights share the database, and a listener passes other processes' notifications to
 * this one (see {@link PostgresNotifications}).
 */
public final class PostgresStorage extends
		JdbcStorage<PostgresJobStore, PostgresJobAdminStore, JdbcScheduleStore, PostgresRetentionStore, PostgresQueueInsights>
		implements AutoCloseable {

	private final PostgresSchema schema;

	private final PostgresNotifications notifications;

	public PostgresStorage(PostgresDatabase database, Tables tables) {
		this(database, tables, new PostgresNotifications(database.dataSource(),
				Objects.requireNonNull(tables, "'tables' must not be null"), database.location()));
	}

	private PostgresStorage(PostgresDatabase database, Tables tables, PostgresNotifications notifications) {
		super(new PostgresJobStore(database, tables, notifications), PostgresJobAdminStore::new,
				(jobs) -> new JdbcScheduleStore(database, tables, jobs::insertJobs),
				new PostgresRetentionStore(database, tables), new PostgresQueueInsights(database, tables));
		this.schema = new PostgresSchema(database.dataSource(), tables, database.location());
		this.notifications = notifications;
	}

	@Override
	public PostgresDatabase database() {
		return jobs().database();
	}

	public PostgresNotifications notifications() {
		return this.notifications;
	}

	/**
	 * Where other processes' enqueues and cancels are passed on in this one (the worker).
	 */
	public PostgresStorage signals(QueueSignals signals) {
		this.notifications.signals(signals);
		return this;
	}

	/** Migrates, then starts listening for other processes' notifications. */
	@Override
	public void initializeSchema() {
		this.schema.initialize();
		this.notifications.start();
	}

	/**
	 * Checks the server and that the schema is up to date, then starts listening as
	 * {@link #initializeSchema()} does.
	 */
	@Override
	public void verifySchema() {
		this.schema.verify();
		this.notifications.start();
	}

	/** Stops listening; the DataSource is its owner's to close. */
	@Override
	public void close() {
		this.notifications.close();
	}

}
