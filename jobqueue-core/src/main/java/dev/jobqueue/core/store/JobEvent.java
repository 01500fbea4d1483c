package dev.jobqueue.core.store;

/**
 * What a job's timeline records (the {@code event} of {@link QueueInsights.Event});
 * stores write the {@link #name()}. The names are stored in the database and shown by the
 * endpoint: never rename one.
 */
public enum JobEvent {

	/** The job was inserted. */
	ENQUEUED,
	/** A recurring schedule enqueued the job for one of its ticks. */
	SCHEDULE_TICK,
	/** A worker claimed the job and started an attempt. */
	CLAIMED,
	/** The handler returned. */
	SUCCEEDED,
	/**
	 * The job failed for good (no attempts left, not retryable, or its lease expired on a
	 * last attempt).
	 */
	FAILED,
	/** The attempt failed and the job waits for its next one. */
	RETRY_SCHEDULED,
	/** The handler asked to run again later; the attempt was given back. */
	SNOOZED,
	/** A cancel was asked for while the job ran: the handler is interrupted. */
	CANCEL_REQUESTED,
	/** The job was cancelled. */
	CANCELLED,
	/**
	 * A cancelled run went on past the cancel timeout; the job was recorded as cancelled
	 * without it.
	 */
	CANCEL_IGNORED,
	/** A run went on past its timeout and its interrupt. */
	TIMEOUT_IGNORED,
	/**
	 * The worker stopped before the run ended; the job is pending again, the attempt not
	 * counted.
	 */
	HANDED_BACK,
	/** The lease of a dead worker's run expired and the job is pending again. */
	RECOVERED,
	/** A failed or cancelled job was put back to pending with a fresh set of attempts. */
	RETRIED,
	/**
	 * The job's success created the next step(s) of its chain; the detail names their
	 * ids.
	 */
	CONTINUED,
	/** The last job a waiting job waited for finished: it is pending now. */
	DEPENDENCIES_MET,
	/**
	 * A job this one waited for failed or was cancelled, and its dependency policy ended
	 * it (the event before says how: {@link #CANCELLED} or {@link #FAILED}).
	 */
	DEPENDENCY_FAILED;

	/** The event a store records for a completion written by the job's worker. */
	public static JobEvent of(Completion.Kind kind) {
		return switch (kind) {
			case SUCCEEDED -> SUCCEEDED;
			case RETRY -> RETRY_SCHEDULED;
			case FAILED -> FAILED;
			case SNOOZED -> SNOOZED;
			case CANCELLED -> CANCELLED;
			case HANDED_BACK -> HANDED_BACK;
		};
	}

}
