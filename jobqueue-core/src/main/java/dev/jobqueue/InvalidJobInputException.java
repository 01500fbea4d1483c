package dev.jobqueue;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a handler (or by the queue, when a payload cannot be read) for input that can
 * never work. The job fails at once with {@code INVALID_INPUT:<subcategory>}
 * ({@link ErrorCodes#INVALID_INPUT}) and is not tried again.
 */
public class InvalidJobInputException extends JobFailedException {

	public InvalidJobInputException(String message) {
		this("INVALID", message, null);
	}

	public InvalidJobInputException(String subcategory, String message, @Nullable Throwable cause) {
		super(ErrorCodes.of(ErrorCodes.INVALID_INPUT, subcategory), message, false, cause);
	}

}
