package dev.jobqueue;

/**
 * What a waiting job ({@link JobRequest#after(long...)}) does when a job it waits for
 * ends failed or cancelled instead of succeeded. Chosen per request with
 * {@link JobRequest#onDependencyFailure(DependencyPolicy)}; the default is
 * {@link #CANCEL}.
 */
public enum DependencyPolicy {

	/**
	 * The waiting job ends {@code cancelled} at once, with
	 * {@link ErrorCodes#DEPENDENCY_FAILED_FAILED} or
	 * {@link ErrorCodes#DEPENDENCY_FAILED_CANCELLED}; jobs waiting for it follow their
	 * own policies. The default.
	 */
	CANCEL,
	/**
	 * The waiting job ends {@code failed} at once, with the same codes as {@link #CANCEL}
	 * (so it shows among failures and can be retried by hand).
	 */
	FAIL,
	/**
	 * The failed or cancelled job counts as finished: the waiting job runs once all it
	 * waits for have finished, however they ended (for a summary that reports failures).
	 */
	RUN;

	/** The value stored in the database. */
	public String dbValue() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

	public static DependencyPolicy fromDbValue(String value) {
		return (value == null) ? CANCEL : valueOf(value.toUpperCase(java.util.Locale.ROOT));
	}

}
