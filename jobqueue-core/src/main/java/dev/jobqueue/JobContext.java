package dev.jobqueue;

import java.time.Duration;

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

}
