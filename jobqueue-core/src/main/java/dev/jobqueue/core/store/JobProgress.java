package dev.jobqueue.core.store;

import java.time.Instant;

/**
 * How far a running job says it is ({@link dev.jobqueue.JobContext#progress}).
 *
 * @param done units done
 * @param total units in all, or 0 when the handler does not know
 * @param message what it is doing, at most {@link #MAX_MESSAGE} characters, or
 * {@code null}
 * @param at when the handler reported it
 */
public record JobProgress(long done, long total, String message, Instant at) {

	/** Longest message kept. */
	public static final int MAX_MESSAGE = 200;

	public JobProgress {
		done = Math.max(0, done);
		total = Math.max(0, total);
		if (message != null && message.length() > MAX_MESSAGE) {
			message = message.substring(0, MAX_MESSAGE);
		}
	}

}
