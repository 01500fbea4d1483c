package dev.jobqueue.core.worker;

import java.io.InterruptedIOException;
import java.util.concurrent.TimeoutException;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.JobErrorCode;
import dev.jobqueue.JobFailedException;

/**
 * Picks an error code in this order: a {@link JobFailedException}'s own code; a
 * {@link JobErrorCode} on the exception's class (or on a cause's) whose value has the
 * form {@code CATEGORY:SUBCATEGORY} (one that does not is passed over: a handler's
 * {@code throws} clause is checked at start-up, an exception it does not declare is not);
 * well-known JVM troubles ({@code RESOURCE:OUT_OF_MEMORY},
 * {@code INTERNAL:STACK_OVERFLOW}, {@code TIMEOUT:*}); else
 * {@code INTERNAL:<exception class>}.
 */
public class DefaultErrorClassifier implements ErrorClassifier {

	@Override
	public ErrorClassification classify(String jobType, Throwable failure) {
		String detail = describe(failure);
		for (Throwable t = failure; t != null; t = (t.getCause() != t) ? t.getCause() : null) {
			if (t instanceof JobFailedException jobFailure) {
				return new ErrorClassification(jobFailure.getErrorCode(), describe(t), jobFailure.isRetryable());
			}
			JobErrorCode annotated = t.getClass().getAnnotation(JobErrorCode.class);
			if (annotated != null && ErrorCodes.isValid(annotated.value())) {
				return new ErrorClassification(annotated.value(), describe(t), annotated.retryable());
			}
		}
		if (failure instanceof OutOfMemoryError) {
			return new ErrorClassification(ErrorCodes.RESOURCE_OUT_OF_MEMORY, detail, true);
		}
		if (failure instanceof StackOverflowError) {
			return new ErrorClassification(ErrorCodes.INTERNAL_STACK_OVERFLOW, detail, true);
		}
		if (failure instanceof TimeoutException || failure instanceof InterruptedIOException) {
			return new ErrorClassification(ErrorCodes.of(ErrorCodes.TIMEOUT, failure.getClass().getSimpleName()),
					detail, true);
		}
		return new ErrorClassification(ErrorCodes.of(ErrorCodes.INTERNAL, simpleName(failure)), detail, true);
	}

	static String describe(Throwable failure) {
		String message = failure.getMessage();
		String name = failure.getClass().getName();
		return (message == null || message.isBlank()) ? name : name + ": " + message;
	}

	private static String simpleName(Throwable failure) {
		String name = failure.getClass().getSimpleName();
		return name.isEmpty() ? failure.getClass().getName() : name;
	}

}
