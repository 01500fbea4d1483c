package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import dev.jobqueue.core.store.NewJob;

/**
 * How a store inserts jobs inside a transaction the caller holds: enqueue, and a
 * schedule's tick, which inserts its job in the transaction that advances the schedule.
 */
@FunctionalInterface
public interface JobInserts {

	/**
	 * @return the ids in request order; a job whose dedup key matches an unfinished job
	 * yields that job's id
	 */
	List<Long> insert(Connection connection, List<NewJob> jobs, Instant now) throws SQLException;

}
