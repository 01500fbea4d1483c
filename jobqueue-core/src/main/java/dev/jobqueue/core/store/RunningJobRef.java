package dev.jobqueue.core.store;

/**
 * A run this worker holds.
 *
 * @param jobId the job
 * @param run its claim number
 * @param waiting whether the job is claimed ahead and waits for a slot: not started, so
 * alive as far as the queue is concerned, and a lease renewal also refreshes its
 * heartbeat time (which "stuck" is measured on); a started run's heartbeat is its
 * handler's to give
 */
public record RunningJobRef(long jobId, int run, boolean waiting) {

	/** A started run. */
	public RunningJobRef(long jobId, int run) {
		this(jobId, run, false);
	}

}
