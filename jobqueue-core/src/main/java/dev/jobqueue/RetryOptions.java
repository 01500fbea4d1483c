package dev.jobqueue;

/**
 * How {@link JobQueue#retry(long, RetryOptions)} puts a job back: with its durable steps
 * kept ({@link #keepSteps()}, what {@link JobQueue#retry(long)} does: after an outage is
 * fixed, the job goes on after its last finished step), or forgotten
 * ({@link #forgetSteps()}: every step runs again, as for a new job).
 */
public final class RetryOptions {

	private static final RetryOptions KEEP_STEPS = new RetryOptions(false);

	private static final RetryOptions FORGET_STEPS = new RetryOptions(true);

	private final boolean forgetSteps;

	private RetryOptions(boolean forgetSteps) {
		this.forgetSteps = forgetSteps;
	}

	/** The job's recorded steps are kept: a step that finished is not run again. */
	public static RetryOptions keepSteps() {
		return KEEP_STEPS;
	}

	/**
	 * The job's recorded steps are deleted with the retry: every step runs again. For a
	 * job whose steps recorded something wrong.
	 */
	public static RetryOptions forgetSteps() {
		return FORGET_STEPS;
	}

	public boolean isForgetSteps() {
		return this.forgetSteps;
	}

	@Override
	public String toString() {
		return this.forgetSteps ? "forgetSteps" : "keepSteps";
	}

}
