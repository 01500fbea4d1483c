package dev.jobqueue.cli;

import java.net.ConnectException;
import java.net.UnknownHostException;

/**
 * Failures as one line: the message that says what went wrong, without stack traces or
 * the lines that follow it.
 */
final class Failures {

	private Failures() {
	}

	static String oneLine(Throwable failure) {
		Throwable root = failure;
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof ConnectException || cause instanceof UnknownHostException) {
				return "the server cannot be reached (" + firstLine(cause.getMessage()) + ")";
			}
			root = cause;
		}
		String message = firstLine(failure.getMessage());
		// The pool's "Connection is not available" hides the driver's reason (no such
		// database, authentication failed) in its cause.
		if (message == null || message.isBlank()
				|| (message.contains("Connection is not available") && root != failure && root.getMessage() != null)) {
			message = firstLine(root.getMessage());
		}
		return (message != null) ? message : failure.getClass().getSimpleName();
	}

	private static String firstLine(String message) {
		if (message == null) {
			return null;
		}
		int end = message.indexOf('\n');
		return ((end >= 0) ? message.substring(0, end) : message).strip();
	}

}
