package dev.jobqueue.core.store;

/**
 * When a job enqueued inside a transaction the queue cannot join (a transaction on
 * another database) becomes visible to workers.
 */
public enum EnqueueVisibility {

	/**
	 * Once that transaction commits; if it rolls back, the job is deleted and never runs.
	 * The job is written at once, held back from workers, so {@code enqueue} still
	 * returns its id and deduplication still answers.
	 */
	AFTER_COMMIT,

	/** At once, whatever becomes of that transaction. */
	IMMEDIATE

}
