package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.NewJob;

/**
 * Chains and dependencies (docs/chains.md), inside a transaction the caller holds: jobs
 * that wait or form a chain go in here, a success's continuation joins its chain here,
 * and every path that finishes a job calls {@link #settle} so the jobs waiting for it
 * count down, become pending, or end by their policy, in the same transaction. Each store
 * writes these its own way (one statement per batch where the database can, row by row
 * where it must).
 */
public interface Links {

	/**
	 * Inserts jobs that wait or form a chain (a fan-out, an {@code after(...)}); jobs of
	 * the call with a chain index start one new chain.
	 * @param changes where jobs inserted finished are counted (they wait for a job that
	 * failed or was cancelled, and their policy ends them)
	 * @return the ids in request order
	 * @throws dev.jobqueue.JobQueueException when a job waits for an id that is no job of
	 * these tables; the caller's transaction then rolls back
	 */
	List<Long> insert(Connection connection, List<NewJob> jobs, Instant now, FinishedCounts.Changes changes)
			throws SQLException;

	/**
	 * Inserts the continuation of an applied success: the completing job joins its chain
	 * and the new jobs follow it. Nothing when a cancel of the job was asked for.
	 * @param changes where jobs inserted finished are counted
	 */
	void continueChain(Connection connection, Completion completion, String workerId, Instant now,
			FinishedCounts.Changes changes) throws SQLException;

	/**
	 * Settles the jobs waiting for jobs that just finished: counts them down, turns those
	 * with nothing left to wait for pending, and ends those a failure ends by their
	 * policy (then settles the jobs waiting for those in turn).
	 * @param finished job id → its final status ({@code succeeded}, {@code failed},
	 * {@code cancelled})
	 * @param changes where the jobs it ends are counted
	 * @return how many jobs turned pending
	 */
	int settle(Connection connection, Map<Long, String> finished, String actor, Instant now,
			FinishedCounts.Changes changes) throws SQLException;

}
