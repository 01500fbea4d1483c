package dev.jobqueue;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a handler to fail the run with an error code of its choice, for example
 * {@code throw new JobFailedException("DEPENDENCY:GEOCODER", "geocoder answered 503", true)}.
 */
public class JobFailedException extends RuntimeException {

	private final String errorCode;

	private final boolean retryable;

	public JobFailedException(String errorCode, @Nullable String message, boolean retryable) {
		this(errorCode, message, retryable, null);
	}

	public JobFailedException(String errorCode, @Nullable String message, boolean retryable,
			@Nullable Throwable cause) {
		super(message, cause);
		this.errorCode = ErrorCodes.requireValid(errorCode);
		this.retryable = retryable;
	}

	/** {@code CATEGORY:SUBCATEGORY}. */
	public String getErrorCode() {
		return this.errorCode;
	}

	/** Whether the job should be tried again while it has attempts left. */
	public boolean isRetryable() {
		return this.retryable;
	}

}
