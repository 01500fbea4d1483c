package dev.jobqueue;

import org.jspecify.annotations.Nullable;

/**
 * The queue could not do what was asked: the request was invalid, or the database could
 * not be used. The message says what went wrong and what to do about it.
 */
public class JobQueueException extends RuntimeException {

	public JobQueueException(String message) {
		super(message);
	}

	public JobQueueException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
