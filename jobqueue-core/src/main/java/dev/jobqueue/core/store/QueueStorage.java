package dev.jobqueue.core.store;

import java.util.Optional;

/**
 * One database as the engine sees it: everything the worker, the scheduler, retention,
 * the endpoint and the meters need from a store. A store module (SQLite, PostgreSQL)
 * implements this and the interfaces it hands out; nothing above the store knows which
 * database it is.
 *
 * <p>
 * All parts work on the same database, so that, for example, a schedule's tick and the
 * job it fires are written in one transaction.
 */
public interface QueueStorage {

	/**
	 * Where the data lives, for messages and the endpoint: a file path or a URL without
	 * credentials.
	 */
	String description();

	/**
	 * Checks the connection settings and brings the queue's schema up to date. Called
	 * once, before any other part is used.
	 * @throws dev.jobqueue.JobQueueException naming the setting or version that is wrong
	 * and what to do
	 */
	void initializeSchema();

	/**
	 * Checks the connection settings and that the queue's schema is up to date, changing
	 * nothing: for operators who migrate the schema themselves. Called once instead of
	 * {@link #initializeSchema()}. Stores that cannot tell trust the operator.
	 * @throws dev.jobqueue.JobQueueException naming what is missing and what to do
	 */
	default void verifySchema() {
	}

	/** Enqueue, claim, complete, renew and recover: the hot path. */
	JobStore jobs();

	/**
	 * Cancel, retry, find, pause and resume: what operators do through the
	 * {@link dev.jobqueue.JobQueue}.
	 */
	JobAdminStore admin();

	ScheduleStore schedules();

	RetentionStore retention();

	/**
	 * Upkeep of the database's files (checkpoints, handing free pages back), where the
	 * store looks after files of its own; empty where the database does that itself.
	 */
	default Optional<FileMaintenance> fileMaintenance() {
		return Optional.empty();
	}

	/**
	 * Vacuums of the queue's tables, where the database leaves dead rows behind for a
	 * vacuum and its own may be off; empty elsewhere.
	 */
	default Optional<TableMaintenance> tableMaintenance() {
		return Optional.empty();
	}

	QueueInsights insights();

	/**
	 * How often a write found the database locked by another writer and was tried again
	 * (0 if never).
	 */
	long lockRetries();

}
