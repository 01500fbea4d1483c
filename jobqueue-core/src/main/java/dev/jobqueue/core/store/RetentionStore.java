package dev.jobqueue.core.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.RetentionCleaner;

/**
 * The store's side of retention and housekeeping (SPI). Every method is its own short
 * transaction, so the {@link RetentionCleaner} can stop between any two calls and leave a
 * consistent database. Upkeep of database files, where a store has files to look after,
 * is {@link FileMaintenance}.
 */
public interface RetentionStore {

	/**
	 * Takes or renews the lease of a housekeeping task: succeeds when nobody holds it,
	 * its holder's lease has expired, or {@code owner} holds it already.
	 * @return whether {@code owner} now holds the lease until {@code until}
	 */
	boolean acquireLease(String task, String owner, Instant now, Instant until);

	/** Gives the lease up if {@code owner} holds it. */
	void releaseLease(String task, String owner);

	/** The types that have finished jobs in {@code status}, in order. */
	List<String> finishedTypes(JobStatus status);

	/**
	 * Deletes up to {@code limit} jobs of {@code status} and {@code type} that finished
	 * before {@code finishedBefore}, with their attempts and events, in one transaction.
	 * Skips jobs that are steps of a chain (those go whole, by
	 * {@link #deleteFinishedChains}) and jobs an unfinished job waits for.
	 * @return how many jobs were deleted; fewer than {@code limit} means none is left
	 */
	int deleteFinished(JobStatus status, String type, Instant finishedBefore, int limit);

	/**
	 * Deletes whole chains, never part of one: up to {@code limit} chains whose every
	 * step is finished, each step before the cutoff of its status, and none of whose
	 * steps an unfinished job outside the chain waits for; with their steps' attempts,
	 * events and dependency rows, in one transaction.
	 * @param finishedBefore per final status, the cutoff; a status that is absent is kept
	 * forever (a chain with such a step is kept)
	 * @return how many jobs (steps) were deleted; 0 when no chain was deletable
	 */
	default int deleteFinishedChains(Map<JobStatus, Instant> finishedBefore, int limit) {
		return 0;
	}

	/**
	 * Deletes the rows of workers whose last heartbeat is before {@code heartbeatBefore}:
	 * processes that died without unregistering. A live worker whose row went
	 * re-registers with its next heartbeat.
	 * @return how many rows were deleted
	 */
	default int deleteSilentWorkers(Instant heartbeatBefore) {
		return 0;
	}

	/**
	 * Deletes counts of the outcome rollup (runs ended per minute) of minutes before
	 * {@code before}: those of the earliest {@code maxMinutes} minutes kept, in one
	 * transaction.
	 * @return how many rows were deleted; 0 means none before {@code before} is left
	 */
	default int deleteOutcomeMinutes(Instant before, int maxMinutes) {
		return 0;
	}

	/**
	 * The space the queue's data takes: the database file and its write-ahead log, or the
	 * queue's tables on a server.
	 */
	StorageStats storage();

	/**
	 * Compacts the queue's data the database's way (SQLite rewrites the file with
	 * {@code VACUUM}, PostgreSQL runs {@code VACUUM (ANALYZE)} on the queue's tables).
	 * Heavy on SQLite: run it off-peak.
	 */
	StorageStats vacuum();

}
