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
	 * Fans out and back in, in one transaction: enqueues {@code children} and a
	 * {@code join} job that waits for all of them ({@link JobStatus#WAITING}) and becomes
	 * pending in the transaction that finishes the last child. The children may be more
	 * than the {@link JobRequest#after(long...)} limit (up to
	 * {@code EnqueueLimits.MAX_FAN_OUT}); finishing each child costs one indexed update
	 * of the join, however many there are. The join may itself wait for other existing
	 * jobs ({@code join.after(...)}), and its {@link DependencyPolicy} decides what a
	 * failed child does to it. Children must not wait for other jobs. All of them form
	 * one chain (see {@link FanOut}).
	 * @return the children's ids and the join's id
	 * @throws JobQueueException if a request is invalid or the database cannot be
	 * written; nothing is written then
	 */
	FanOut enqueueFanOut(List<JobRequest> children, JobRequest join);

	/**
	 * Cancels a job: a pending job is cancelled at once, a running one is interrupted and
	 * ends cancelled.
	 * @return whether the job was pending or running
	 */
	boolean cancel(long id);

	/**
	 * Cancels every unfinished step of a chain (the jobs sharing {@code chainId}, see
	 * {@link Job#chainId()}): waiting and pending steps end cancelled with
	 * {@link ErrorCodes#CANCELLED_CHAIN}, running ones are interrupted and end cancelled,
	 * and no continuation is created from them any more. Jobs outside the chain that wait
	 * for a cancelled step follow their {@link DependencyPolicy}.
	 * @return how many steps were waiting, pending or running
	 */
	int cancelChain(long chainId);

	/**
	 * The steps of a chain, by chain index then id; empty if no job has this chain id.
	 */
	List<Job> findChain(long chainId);

	/**
	 * Puts a failed or cancelled job back to pending with a fresh set of attempts. Its
	 * recorded durable steps ({@link JobContext#step}) are kept: the next run returns
	 * their results without doing them again.
	 * @return whether the job was failed or cancelled
	 */
	default boolean retry(long id) {
		return retry(id, RetryOptions.keepSteps());
	}

	/**
	 * As {@link #retry(long)}, with {@link RetryOptions#forgetSteps()} to run every step
	 * again.
	 * @return whether the job was failed or cancelled
	 */
	boolean retry(long id, RetryOptions options);

	/**
	 * The job with this id, if it exists (finished jobs are kept until retention removes
	 * them).
	 */
	Optional<Job> find(long id);

	/**
	 * The result a job's handler returned, read back as {@code type} with the codec
	 * payloads are written with ({@link Job#result()} keeps the stored JSON text).
	 * @param id the job's id
	 * @param type the type the handler returned, or one its JSON maps to
	 * @return the result, or empty when the job does not exist or has no result (not
	 * finished yet, or its handler returned nothing)
	 * @throws JobQueueException if the stored result does not map to {@code type}
	 */
	<T> Optional<T> result(long id, Class<T> type);

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

	/**
	 * Retries, cancels or deletes every job a filter matches, as {@link #retry(long)},
	 * {@link #cancel(long)} and retention's delete do one job: each job changed gets its
	 * own event, and waiting jobs are settled. The ids are read in id order, then changed
	 * {@link BulkRequest#batchSize()} at a time, each batch its own transaction that
	 * checks the filter again: a job that changed meanwhile so that it no longer matches
	 * is left alone, and no job is touched twice. Jobs enqueued after the action started
	 * are not touched.
	 * @return how many jobs matched and were changed; on a dry run, how many would be
	 * @throws JobQueueException when the filter's status does not fit the action, or more
	 * than {@link BulkRequest#CONFIRMATION_BOUND} jobs match and the request is not
	 * {@link BulkRequest#confirmed()}; nothing is changed then
	 */
	BulkResult bulk(BulkRequest request);

}
