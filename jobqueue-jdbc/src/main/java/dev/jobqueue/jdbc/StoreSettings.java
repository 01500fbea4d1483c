package dev.jobqueue.jdbc;

import java.time.Duration;
import java.util.Objects;

import dev.jobqueue.core.store.EnqueueVisibility;
import dev.jobqueue.core.store.QueueSignals;

/**
 * What a store is built with, whichever database it is on; each store reads the settings
 * that mean something to it (a SQLite file has no user, PostgreSQL no busy timeout).
 *
 * @param tablePrefix prefix of the queue's table and index names ({@code ""} for none)
 * @param schema the schema of the queue's tables where the database has schemas;
 * {@code null} for the default
 * @param username the user of the queue's own pool, or {@code null} (then the URL's)
 * @param password that user's password, or {@code null}
 * @param poolSize connections of the queue's own pool
 * @param connectionTimeout how long a statement waits for a connection of the queue's own
 * pool
 * @param busyTimeout how long a SQLite connection waits for another's write lock
 * @param lockWait how long a SQLite write is tried again while the database stays locked
 * @param synchronous SQLite's {@code synchronous} pragma for the queue's own connections
 * @param visibility when a job enqueued in a transaction on another database becomes
 * visible to workers
 * @param callerTransactions the application's transactions, which writes on a shared
 * DataSource join
 * @param signals where other processes' enqueues and cancels are passed on in this one,
 * for stores that hear of them (PostgreSQL's notifications)
 */
public record StoreSettings(String tablePrefix, String schema, String username, String password, int poolSize,
		Duration connectionTimeout, Duration busyTimeout, Duration lockWait, String synchronous,
		EnqueueVisibility visibility, CallerTransactions callerTransactions, QueueSignals signals) {

	public StoreSettings {
		tablePrefix = (tablePrefix != null) ? tablePrefix : "";
		Objects.requireNonNull(connectionTimeout, "'connectionTimeout' must not be null");
		Objects.requireNonNull(busyTimeout, "'busyTimeout' must not be null");
		Objects.requireNonNull(lockWait, "'lockWait' must not be null");
		Objects.requireNonNull(synchronous, "'synchronous' must not be null");
		Objects.requireNonNull(visibility, "'visibility' must not be null");
		Objects.requireNonNull(callerTransactions, "'callerTransactions' must not be null");
	}

	/**
	 * Settings for a tool that reads and administers a queue from outside its application
	 * (the command line): jobs it enqueues are visible after their commit, it joins no
	 * caller's transactions and hears no signals.
	 */
	public static StoreSettings forTool(String tablePrefix, String schema, String username, String password,
			int poolSize, Duration connectionTimeout, Duration busyTimeout, Duration lockWait) {
		return new StoreSettings(tablePrefix, schema, username, password, poolSize, connectionTimeout, busyTimeout,
				lockWait, "NORMAL", EnqueueVisibility.AFTER_COMMIT, CallerTransactions.NONE, null);
	}

	/** The defaults the starter has, for tools and tests. */
	public static StoreSettings defaults() {
		return new StoreSettings("", null, null, null, 4, Duration.ofSeconds(10), Duration.ofSeconds(5),
				Duration.ofSeconds(30), "NORMAL", EnqueueVisibility.AFTER_COMMIT, CallerTransactions.NONE, null);
	}

}
