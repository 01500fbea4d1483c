package dev.jobqueue;

import java.util.Objects;

/**
 * A bulk action on every job a {@link JobFilter} matches, for
 * {@link JobQueue#bulk(BulkRequest)}: <pre>{@code
 * BulkResult count = jobQueue.bulk(BulkRequest.retry(filter).dryRun());   // how many
 * BulkResult done = jobQueue.bulk(BulkRequest.retry(filter));            // then do it
 * }</pre> Jobs are changed {@link #batchSize()} at a time, each batch its own short
 * transaction, so no transaction holds the database (SQLite's single write lock among
 * them) for long. An action matching more than {@link #CONFIRMATION_BOUND} jobs is
 * refused unless {@link #confirmed()}.
 */
public final class BulkRequest {

	/**
	 * Jobs changed per transaction unless asked otherwise: short enough that a batch
	 * holds SQLite's write lock for a few milliseconds (see the README's benchmarks).
	 */
	public static final int DEFAULT_BATCH_SIZE = 500;

	/** Most jobs changed per transaction. */
	public static final int MAX_BATCH_SIZE = 5000;

	/** Matching jobs above which an action needs {@link #confirmed()}. */
	public static final long CONFIRMATION_BOUND = 1_000_000;

	private final BulkAction action;

	private final JobFilter filter;

	private final boolean dryRun;

	private final boolean confirmed;

	private final int batchSize;

	private BulkRequest(BulkAction action, JobFilter filter, boolean dryRun, boolean confirmed, int batchSize) {
		this.action = Objects.requireNonNull(action, "'action' must not be null");
		this.filter = Objects.requireNonNull(filter, "'filter' must not be null");
		this.dryRun = dryRun;
		this.confirmed = confirmed;
		this.batchSize = batchSize;
	}

	/** {@code action} on every job {@code filter} matches. */
	public static BulkRequest of(BulkAction action, JobFilter filter) {
		return new BulkRequest(action, filter, false, false, DEFAULT_BATCH_SIZE);
	}

	/** Retries every failed or cancelled job {@code filter} matches. */
	public static BulkRequest retry(JobFilter filter) {
		return of(BulkAction.RETRY, filter);
	}

	/** Cancels every waiting, pending or running job {@code filter} matches. */
	public static BulkRequest cancel(JobFilter filter) {
		return of(BulkAction.CANCEL, filter);
	}

	/**
	 * Deletes every finished job {@code filter} matches (see {@link BulkAction#DELETE}).
	 */
	public static BulkRequest delete(JobFilter filter) {
		return of(BulkAction.DELETE, filter);
	}

	/** Only counts the jobs the action would touch now; changes nothing. */
	public BulkRequest dryRun() {
		return new BulkRequest(this.action, this.filter, true, this.confirmed, this.batchSize);
	}

	/** Runs even when more than {@link #CONFIRMATION_BOUND} jobs match. */
	public BulkRequest confirmed() {
		return new BulkRequest(this.action, this.filter, this.dryRun, true, this.batchSize);
	}

	/**
	 * Changes {@code batchSize} jobs per transaction.
	 * @throws JobQueueException unless 1 to {@link #MAX_BATCH_SIZE}
	 */
	public BulkRequest batchSize(int batchSize) {
		if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
			throw new JobQueueException(
					"A bulk action's batch size of " + batchSize + " is out of range: use 1 to " + MAX_BATCH_SIZE);
		}
		return new BulkRequest(this.action, this.filter, this.dryRun, this.confirmed, batchSize);
	}

	public BulkAction action() {
		return this.action;
	}

	public JobFilter filter() {
		return this.filter;
	}

	public boolean isDryRun() {
		return this.dryRun;
	}

	public boolean isConfirmed() {
		return this.confirmed;
	}

	public int batchSize() {
		return this.batchSize;
	}

	@Override
	public String toString() {
		return this.action.word() + " of " + this.filter + (this.dryRun ? " (dry run)" : "");
	}

}
