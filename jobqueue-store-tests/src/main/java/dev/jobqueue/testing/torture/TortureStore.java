package dev.jobqueue.testing.torture;

import java.sql.Connection;
import java.sql.SQLException;

import dev.jobqueue.core.StepTransactions;

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

	/**
	 * The database at {@code location} as an application that shares it with the queue
	 * opens it in a worker JVM: the queue's writes join the application's transactions,
	 * in which transactional steps run. For {@link StepsTortureHarness}.
	 */
	default SharedDatabase openShared(String location, int poolSize) {
		throw new UnsupportedOperationException(getClass().getName() + " does not open a shared database");
	}

	/**
	 * A queue database shared with an application: its stores, the application's
	 * transactions that transactional steps run in, and the application's own writes,
	 * which take part in the calling thread's transaction.
	 */
	record SharedDatabase(StoreFixture db, StepTransactions stepTransactions,
			ApplicationWrites writes) implements AutoCloseable {

		@Override
		public void close() {
			this.db.close();
		}

	}

	/** The application's data access (a {@code JdbcTemplate}, say). */
	@FunctionalInterface
	interface ApplicationWrites {

		void update(String sql, Object... args);

	}

	/** Hooks the worker to the store's wake-ups (LISTEN/NOTIFY), where it has them. */
	default void connect(StoreFixture db, JobWorker worker) {
	}

	/** A connection of its own on the database of {@code db}, for the invariants. */
	Connection connect(StoreFixture db) throws SQLException;

}
