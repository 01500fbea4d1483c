package dev.jobqueue;

import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Enqueues and manages background jobs. Jobs are stored in SQLite before {@code enqueue}
 * returns, and run by the {@link JobHandler} of their type on any process that shares the
 * database.
 *
 * <p>
 * When the queue uses the application's DataSource, enqueue joins the caller's Spring
 * transaction: a job enqueued in a transaction that rolls back never runs.
 */
public interface JobQueue {

	/**
	 * Enqueues a job of {@code type} to run as soon as a worker is free.
	 * @return the new job's id
	 * @throws JobQueueException if the type or payload is invalid or the database cannot
	 * be written
	 */
	default long enqueue(String type, @Nullable Object payload) {
		return enqueue(JobRequest.of(type, payload));
	}

	/**
	 * Enqueues a job with options.
	 * @return the new job's id, or the id of the unfinished job with the same dedup key
	 * @throws JobQueueException if an option or the payload is invalid or the database
	 * cannot be written
	 */
	long enqueue(JobRequest request);

	/**
	 * Enqueues many jobs in one transaction: all or none.
	 * @return the ids, in the order of the requests
	 */
	List<Long> enqueueAll(List<JobRequest> requests);

	/**
	 * Cancels a job: a pending job is cancelled at once, a running one is interrupted and
	 * ends cancelled.
	 * @return whether the job was pending or running
	 */
	boolean cancel(long id);

	/**
	 * Puts a failed or cancelled job back to pending with a fresh set of attempts.
	 * @return whether the job was failed or cancelled
	 */
	boolean retry(long id);

	/**
	 * The job with this id, if it exists (finished jobs are kept until retention removes
	 * them).
	 */
	Optional<Job> find(long id);

	/**
	 * Pauses a job type in every process sharing the database, for an operator during an
	 * incident: its pending jobs are no longer claimed (running ones finish) and its
	 * schedules wait, then fire by their {@link Misfire} policy on resume. Enqueueing
	 * goes on. Takes effect with the next claim.
	 * @return whether the type was not paused before
	 */
	boolean pause(String type);

	/**
	 * Lets a paused type's jobs be claimed again.
	 * @return whether the type was paused
	 */
	boolean resume(String type);

	/** The paused types, ordered by type. */
	List<PausedType> pausedTypes();

}
