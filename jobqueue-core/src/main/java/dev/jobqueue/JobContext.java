package dev.jobqueue;

import java.time.Duration;
import java.util.List;

/**
 * What a running handler may know and do about its job. Declare it as an extra parameter
 * of a {@link JobHandler} method to receive it.
 */
public interface JobContext {

	/** The job's id. */
	long jobId();

	/** The job's type. */
	String type();

	/** Which attempt this run is, starting at 1. Snoozes do not count. */
	int attempt();

	/** Attempts the job may use in all. */
	int maxAttempts();

	/**
	 * Records progress now: renews this run's lease and learns at once whether the job
	 * was cancelled. The worker renews leases on its own while the process lives; call
	 * this from long loops to be told of a cancellation sooner.
	 * @return whether the run should go on ({@code false} once the job was cancelled or
	 * its lease lost)
	 */
	boolean heartbeat();

	/**
	 * Reports how far the run is, for the dashboard's progress bar and the actuator
	 * endpoint, and proves the handler alive like {@link #heartbeat()}. Call it as often
	 * as you like: it is written at most every two seconds, together with the heartbeat,
	 * not per call.
	 * @param done units done so far
	 * @param total units in all, or 0 when unknown
	 * @param message what the handler is doing (shortened to 200 characters), or
	 * {@code null}
	 * @return whether the run should go on, as {@link #heartbeat()}
	 */
	default boolean progress(long done, long total, String message) {
		return heartbeat();
	}

	/**
	 * Whether the job was cancelled (or its lease lost) and the handler should stop soon.
	 */
	boolean isCancelled();

	/**
	 * Ends this run and puts the job back to run again after {@code delay}, without using
	 * up an attempt. Never returns: it throws {@link JobSnoozedException}, which the
	 * handler must let through.
	 */
	void snooze(Duration delay);

	/**
	 * Says what runs after this job: if this run succeeds, the next step of its chain is
	 * inserted in the same transaction that records the success, fenced like it, so it
	 * exists exactly once however often the handler ran. If the run does not succeed (it
	 * throws, is retried, snoozes, is cancelled), nothing is created: the next attempt
	 * decides again. The step joins this job's chain ({@link Job#chainId()}, this job's
	 * id if it was not in one) at the next chain index.
	 * @throws IllegalArgumentException if the request is invalid (as enqueue would say),
	 * waits for other jobs or has a dedup key
	 * @throws IllegalStateException if this run already said what comes next
	 */
	default void continueWith(String type, Object payload) {
		continueWith(JobRequest.of(type, payload));
	}

	/** As {@link #continueWith(String, Object)}, with options. */
	void continueWith(JobRequest next);

	/**
	 * Says that this job continues with many jobs and one that joins them: if this run
	 * succeeds, {@code children} (the next chain index) and {@code join} (the one after,
	 * waiting for every child as in {@link JobQueue#enqueueFanOut}) are inserted in the
	 * transaction that records the success, exactly once. For "import a file → one job
	 * per row → a summary when all rows are done".
	 * @throws IllegalArgumentException if a request is invalid, waits for other jobs or
	 * has a dedup key, or there are more than {@code EnqueueLimits.MAX_FAN_OUT} children
	 * @throws IllegalStateException if this run already said what comes next
	 */
	void continueWithFanOut(List<JobRequest> children, JobRequest join);

}
