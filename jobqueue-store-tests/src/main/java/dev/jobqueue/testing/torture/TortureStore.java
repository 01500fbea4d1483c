package dev.jobqueue.testing.torture;

import java.sql.Connection;
import java.sql.SQLException;

import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreFixture;

/**
 * How the torture harness reaches one store: the database a test creates, the same
 * database opened again from a worker JVM, and a connection of its own for the
 * invariants. Implementations have a public no-argument constructor (the worker JVM gets
 * the class name).
 */
public interface TortureStore {

	/** A new, migrated database for one run, in {@code directory} where files go. */
	StoreFixture create(java.nio.file.Path directory);

	/** Where a worker JVM finds the database of {@code db} (a file, a URL). */
	String location(StoreFixture db);

	/**
	 * The database at {@code location}, as a worker JVM with that many threads opens it.
	 */
	StoreFixture open(String location, int poolSize);

	/** Hooks the worker to the store's wake-ups (LISTEN/NOTIFY), where it has them. */
	default void connect(StoreFixture db, JobWorker worker) {
	}

	/** A connection of its own on the database of {@code db}, for the invariants. */
	Connection connect(StoreFixture db) throws SQLException;

}
