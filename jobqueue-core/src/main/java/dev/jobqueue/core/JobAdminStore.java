package dev.jobqueue.core;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.jobqueue.Job;
import dev.jobqueue.PausedType;

/**
 * What an operator (through {@link dev.jobqueue.JobQueue}) does to single jobs and to job
 * types: cancel, retry, read one job, pause and resume a type. Kept apart from
 * {@link JobStore} because the worker needs none of it. Same rules as there: no clock,
 * one transaction per method, transient lock conflicts retried inside.
 */
public interface JobAdminStore {

	/** See {@link dev.jobqueue.JobQueue#cancel(long)}. */
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

	Optional<Job> find(long id);

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

}
