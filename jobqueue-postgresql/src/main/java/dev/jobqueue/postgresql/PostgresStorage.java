package dev.jobqueue.postgresql;

import java.util.Objects;

import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.jdbc.JdbcScheduleStore;
import dev.jobqueue.jdbc.Tables;

/**
 * The queue on one PostgreSQL database: its job, schedule and retention stores and
 * insights share the database, and a listener passes other processes' notifications to
 * this one (see {@link PostgresNotifications}).
 */
public final class PostgresStorage implements QueueStorage, AutoCloseable {

	private final PostgresDatabase database;

	private final Tables tables;

	private final PostgresSchema schema;

	private final PostgresNotifications notifications;

	private final PostgresJobStore jobs;

	private final PostgresJobAdminStore admin;

	private final JdbcScheduleStore schedules;

	private final PostgresRetentionStore retention;

	private final PostgresQueueInsights insights;

	public PostgresStorage(PostgresDatabase database, Tables tables) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.schema = new PostgresSchema(database.dataSource(), tables, database.location());
		this.notifications = new PostgresNotifications(database.dataSource(), tables, database.location());
		this.jobs = new PostgresJobStore(database, tables, this.notifications);
		this.admin = new PostgresJobAdminStore(this.jobs);
		this.schedules = new JdbcScheduleStore(database, tables, this.jobs::insertJobs);
		this.retention = new PostgresRetentionStore(database, tables);
		this.insights = new PostgresQueueInsights(database, tables);
	}

	public PostgresDatabase database() {
		return this.database;
	}

	public Tables tables() {
		return this.tables;
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

	@Override
	public String description() {
		return this.database.location();
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

	@Override
	public PostgresJobStore jobs() {
		return this.jobs;
	}

	@Override
	public PostgresJobAdminStore admin() {
		return this.admin;
	}

	@Override
	public JdbcScheduleStore schedules() {
		return this.schedules;
	}

	@Override
	public PostgresRetentionStore retention() {
		return this.retention;
	}

	@Override
	public PostgresQueueInsights insights() {
		return this.insights;
	}

	@Override
	public long lockRetries() {
		return this.database.retries();
	}

	/** Stops listening; the DataSource is its owner's to close. */
	@Override
	public void close() {
		this.notifications.close();
	}

}
