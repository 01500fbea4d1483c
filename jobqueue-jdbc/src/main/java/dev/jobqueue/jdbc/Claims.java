package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;

/**
 * How a store claims jobs, inside a write transaction the caller holds: the one part of
 * the hot path each database does its own way (a single writer on SQLite, row locks
 * skipped by other claimers on PostgreSQL). A claim records what it took (an attempt row
 * and a {@code CLAIMED} event per job) in the same transaction.
 */
@FunctionalInterface
public interface Claims {

	/**
	 * @return the claimed jobs in claim order (priority, due time, id)
	 */
	List<ClaimedJob> claim(Connection connection, ClaimRequest request, Instant now) throws SQLException;

}
