package dev.jobqueue.cli;

/**
 * A failure the tool reports in one line, with the exit code it ends with.
 */
final class CliException extends RuntimeException {

	private final int exitCode;

	CliException(int exitCode, String message) {
		super(message);
		this.exitCode = exitCode;
	}

	CliException(int exitCode, String message, Throwable cause) {
		super(message, cause);
		this.exitCode = exitCode;
	}

	int exitCode() {
		return this.exitCode;
	}

	/** Nothing matched: no such job, an action that did not apply, an empty list. */
	static CliException nothing(String message) {
		return new CliException(ExitCodes.NOTHING, message);
	}

	/** Bad input the tool can tell before it changes anything. */
	static CliException usage(String message) {
		return new CliException(ExitCodes.USAGE, message);
	}

	/** The database cannot be used: unreachable, locked, not a queue, newer schema. */
	static CliException database(String message) {
		return new CliException(ExitCodes.DATABASE, message);
	}

}
