package dev.jobqueue.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.jobqueue.core.store.FileMaintenance;
import dev.jobqueue.core.store.JobAdminStore;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.store.ScheduleStore;

/**
 * A real, migrated queue database for one test, as the behaviour suite sees any store:
 * the stores on top of it, raw SQL on the same tables (the queue's table and column names
 * are the same on every store), and the one difference raw SQL shows, how an instant is
 * kept (epoch milliseconds on SQLite, {@code timestamptz} on PostgreSQL).
 */
public interface StoreFixture extends AutoCloseable {

	JobStore store();

	JobAdminStore admin();

	ScheduleStore schedules();

	/** What the endpoint, health, meters and dashboard read, on this database. */
	QueueInsights insights();

	/** Retention's deletes, its lease and worker pruning, on this database. */
	RetentionStore retention();

	/**
	 * The upkeep of the database's files that retention runs after deleting, where the
	 * store has files of its own (SQLite).
	 */
	default Optional<FileMaintenance> fileMaintenance() {
		return Optional.empty();
	}

	/**
	 * The same database as seen from another process: a connection pool and stores of its
	 * own, which the caller closes. Closing it leaves the database to this fixture.
	 */
	StoreFixture anotherProcess();

	/**
	 * Has the store's next claim by rounds across keys run {@code change} on its own
	 * connection, inside its transaction, between reading what it takes and taking it:
	 * what another transaction committed at that moment would change.
	 */
	void beforeNextTake(ConnectionWork change);

	/** The first column of each row of a query. */
	List<Object> column(String sql, Object... args);

	default long count(String sql, Object... args) {
		return ((Number) column(sql, args).get(0)).longValue();
	}

	void execute(String sql, Object... args);

	/**
	 * The value a column of an instant holds for {@code instant}, as a JDBC driver
	 * returns it.
	 */
	Object timestamp(Instant instant);

	/** Closes the pool (and drops the database where the fixture created one). */
	@Override
	void close();

	/** Work on a connection of the store's. */
	@FunctionalInterface
	interface ConnectionWork {

		void run(Connection connection) throws SQLException;

	}

}
