package dev.jobqueue.core.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.jobqueue.BulkAction;
import dev.jobqueue.Job;
import dev.jobqueue.JobFilter;
import dev.jobqueue.PausedType;

/**
 * What an operator (through {@link dev.jobqueue.JobQueue}) does to single jobs and to job
 * types: cancel, retry, read one job, pause and resume a type. Kept apart from
 * {@link JobStore} because the worker needs none of it. Same rules as there: no clock,
 * one transaction per method, transient lock conflicts retried inside.
 */
public interface JobAdminStore {

	/**
	 * See {@link dev.jobqueue.JobQueue#cancel(long)}; a waiting job is cancelled like a
	 * pending one. A job cancelled here settles the jobs waiting for it in the same
	 * transaction, as {@link JobStore#complete} does.
	 */
	boolean cancel(long id, Instant now);

	/**
	 * Cancels, joining the caller's transaction where the store shares it.
	 * @param afterCommit run once the cancel is committed, if it applied
	 */
	default boolean cancel(long id, Instant now, Runnable afterCommit) {
		boolean cancelled = cancel(id, now);
		if (cancelled) {
			afterCommit.run();
		}
		return cancelled;
	}

	/** See {@link dev.jobqueue.JobQueue#retry(long)}. */
	boolean retry(long id, Instant now);

	/**
	 * Retries, joining the caller's transaction where the store shares it.
	 * @param afterCommit run once the retry is committed, if it applied
	 */
	default boolean retry(long id, Instant now, Runnable afterCommit) {
		boolean retried = retry(id, now);
		if (retried) {
			afterCommit.run();
		}
		return retried;
	}

	/**
	 * Retries, forgetting the job's durable steps in the same transaction when
	 * {@code forgetSteps}; see
	 * {@link dev.jobqueue.JobQueue#retry(long, dev.jobqueue.RetryOptions)}. Joins the
	 * caller's transaction where the store shares it.
	 * @param afterCommit run once the retry is committed, if it applied
	 */
	boolean retry(long id, Instant now, boolean forgetSteps, Runnable afterCommit);

	Optional<Job> find(long id);

	/**
	 * Cancels the unfinished steps of a chain in one transaction: waiting and pending
	 * steps end cancelled with {@link dev.jobqueue.ErrorCodes#CANCELLED_CHAIN} (settling
	 * the jobs waiting for them), running steps get their cancel requested (and a success
	 * they still report creates no continuation). Joins the caller's transaction where
	 * the store shares it.
	 * @return the ids of the steps that were waiting, pending or running, in id order
	 */
	List<Long> cancelChain(long chainId, Instant now);

	/** The steps of a chain, by chain index then id; see {@link #find(long)}. */
	List<Job> findChain(long chainId);

	/**
	 * Pauses claims of a type in every process; see
	 * {@link dev.jobqueue.JobQueue#pause(String)}. Joins the caller's transaction where
	 * the store shares it.
	 * @return whether it was not paused before
	 */
	boolean pause(String type, String actor, Instant now);

	/**
	 * @return whether the type was paused
	 */
	boolean resume(String type);

	/**
	 * Resumes, joining the caller's transaction where the store shares it.
	 * @param afterCommit run once the resume is committed, if the type was paused
	 */
	default boolean resume(String type, Runnable afterCommit) {
		boolean resumed = resume(type);
		if (resumed) {
			afterCommit.run();
		}
		return resumed;
	}

	List<PausedType> pausedTypes();

	/**
	 * How many jobs {@code filter} matches that {@code action} applies to now (their
	 * status one of {@link BulkAction#statuses()}, and for a delete not a chain step nor
	 * waited for by an unfinished job). A read.
	 */
	long countForBulk(BulkAction action, JobFilter filter);

	/** The largest job id now, 0 when there is no job: where a bulk action stops. */
	long lastJobId();

	/**
	 * The ids of up to {@code limit} jobs {@link #countForBulk} would count, with ids
	 * above {@code afterId} and up to {@code throughId}, in id order. A read, no lock.
	 */
	List<Long> selectForBulk(BulkAction action, JobFilter filter, long afterId, long throughId, int limit);

	/**
	 * Applies {@code action} to those of {@code ids} that still match {@code filter} and
	 * the action, in one transaction of its own (never the caller's), each job as its
	 * single-job method does (its event written, waiting jobs settled, other processes
	 * told).
	 * @return the ids changed, in id order
	 */
	List<Long> applyBulk(BulkAction action, JobFilter filter, List<Long> ids, Instant now);

}
