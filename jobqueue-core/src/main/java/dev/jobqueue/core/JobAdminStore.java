package dev.jobqueue.core;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.jobqueue.Job;
import dev.jobqueue.PausedType;

/**
 * What an operator (through {@link dev.jobqueue.JobQueue}) does to single jobs and to job types: cancel, retry,
 * read one job, pause and resume a type. Kept apart from {@link JobStore} because the worker needs none of it.
 * Same rules as there: no clock, one transaction per method, transient lock conflicts retried inside.
 */
public interface JobAdminStore {

	/** See {@link dev.jobqueue.JobQueue#cancel(long)}. */
	boolean cancel(long id, Instant now);

	/** See {@link dev.jobqueue.JobQueue#retry(long)}. */
	boolean retry(long id, Instant now);

	Optional<Job> find(long id);

	/**
	 * Pauses claims of a type in every process; see {@link dev.jobqueue.JobQueue#pause(String)}.
	 * @return whether it was not paused before
	 */
	boolean pause(String type, String actor, Instant now);

	/** @return whether the type was paused */
	boolean resume(String type);

	List<PausedType> pausedTypes();

}
