package dev.jobqueue;

import java.util.Locale;

/**
 * Where a job is in its life: {@code pending → running → succeeded | failed | cancelled}.
 * A failed attempt with attempts left goes back to {@code pending}. A job enqueued to
 * wait for other jobs ({@link JobRequest#after(long...)}) starts {@code waiting} and
 * becomes {@code pending} in the transaction that finishes the last of them (or ends
 * {@code cancelled}/{@code failed} by its {@link DependencyPolicy}).
 */
public enum JobStatus {

	/** Waiting to be claimed, now or at its due time. */
	PENDING,
	/** Claimed by a worker that holds a lease on it. */
	RUNNING,
	/** Finished successfully. */
	SUCCEEDED,
	/** Finished without success, after its last attempt or on input that cannot work. */
	FAILED,
	/** Cancelled before or while it ran. */
	CANCELLED,
	/**
	 * Not claimable yet: some of the jobs it waits for are unfinished. An addition to the
	 * lifecycle above (listed last so existing orderings stay as they were).
	 */
	WAITING;

	/** The value stored in the {@code status} column. */
	public String dbValue() {
		return name().toLowerCase(Locale.ROOT);
	}

	/** Whether a job in this status will never run again unless retried by hand. */
	public boolean isFinal() {
		return this == SUCCEEDED || this == FAILED || this == CANCELLED;
	}

	public static JobStatus fromDbValue(String value) {
		return valueOf(value.toUpperCase(Locale.ROOT));
	}

}
