package dev.jobqueue;

import java.util.Objects;

/**
 * Thrown by a handler to fail the run with an error code of its choice, for example
 * {@code throw new JobFailedException("DEPENDENCY:GEOCODER", "geocoder answered 503", true)}.
 */
public class JobFailedException extends RuntimeException {

	private final String errorCode;

	private final boolean retryable;

	public JobFailedException(String errorCode, String message, boolean retryable) {
		this(errorCode, message, retryable, null);
	}

	public JobFailedException(String errorCode, String message, boolean retryable, Throwable cause) {
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

	static final class ErrorCodes {

		private ErrorCodes() {
		}

		static String requireValid(String code) {
			Objects.requireNonNull(code, "'errorCode' must not be null");
			if (!code.matches("[A-Z][A-Z0-9_]*:[A-Za-z0-9_.$-]{1,80}")) {
				throw new IllegalArgumentException("An error code has the form CATEGORY:SUBCATEGORY (for example "
						+ "DEPENDENCY:PAYMENT_API), got '" + code + "'");
			}
			return code;
		}

	}

}
