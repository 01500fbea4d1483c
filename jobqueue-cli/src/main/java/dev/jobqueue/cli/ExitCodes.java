package dev.jobqueue.cli;

/**
 * The tool's exit codes, as the README documents them.
 */
final class ExitCodes {

	/** Done, and nothing found wrong. */
	static final int OK = 0;

	/**
	 * {@code doctor} found a problem, or nothing matched: no such job, an action that did
	 * not apply, a filter that matched no job, an empty list or search, a purge that
	 * deleted nothing.
	 */
	static final int NOTHING = 1;

	/**
	 * Bad usage: an unknown option, a value out of range, a type name over the bound, a
	 * bulk action over {@link dev.jobqueue.BulkRequest#CONFIRMATION_BOUND} jobs without
	 * {@code --yes}.
	 */
	static final int USAGE = 2;

	/**
	 * The database cannot be used: unreachable, locked, not a queue database, a schema
	 * newer than this tool (or older, until {@code migrate}).
	 */
	static final int DATABASE = 3;

	private ExitCodes() {
	}

}
