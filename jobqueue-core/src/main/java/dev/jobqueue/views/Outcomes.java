package dev.jobqueue.views;

import java.time.Instant;

/**
 * Runs that ended in one time slot.
 *
 * @param start the slot's start
 * @param succeeded runs that succeeded
 * @param failed runs that failed (or lost their lease) and left the job failed for good
 * @param retried runs that failed (or lost their lease) and were followed by another run,
 * or will be
 */
public record Outcomes(Instant start, long succeeded, long failed, long retried) {

	/** All runs that ended in the slot. */
	public long total() {
		return this.succeeded + this.failed + this.retried;
	}

}
