package dev.jobqueue.postgresql;

import java.util.Objects;
import java.util.Optional;

import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.core.store.TableMaintenance;
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

	private final PostgresNotifications notifications;

	private final PostgresTableMaintenance tableMaintenance;

	public PostgresStorage(PostgresDatabase database, Tables tables) {
		this(database, tables, new PostgresNotifications(database.dataSource(),
				Objects.requireNonNull(tables, "'tables' must not be null"), database.location()));
	}

	private PostgresStorage(PostgresDatabase database, Tables tables, PostgresNotifications notifications) {
		super(new PostgresJobStore(database, tables, notifications), PostgresJobAdminStore::new,
				(jobs) -> new JdbcScheduleStore(database, tables, jobs::insertJobs),
				new PostgresRetentionStore(database, tables), new PostgresQueueInsights(database, tables),
				new PostgresSchema(database.dataSource(), tables, database.location()));
		this.notifications = notifications;
		this.tableMaintenance = new PostgresTableMaintenance(database, tables);
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

	/** Vacuums of the queue's tables, for servers whose autovacuum is off. */
	@Override
	public Optional<TableMaintenance> tableMaintenance() {
		return Optional.of(this.tableMaintenance);
	}

	/** Migrates, then starts listening for other processes' notifications. */
	@Override
	public void initializeSchema() {
		super.initializeSchema();
		this.notifications.start();
	}

	/**
	 * Checks the server and that the schema is up to date, then starts listening as
	 * {@link #initializeSchema()} does.
	 */
	@Override
	public void verifySchema() {
		super.verifySchema();
		this.notifications.start();
	}

	/** Stops listening; the DataSource is its owner's to close. */
	@Override
	public void close() {
		this.notifications.close();
	}

}
