package dev.jobqueue.core.retention;

import java.time.Duration;
import java.util.Objects;

/**
 * How the {@link RetentionCleaner} works.
 *
 * @param policy how long finished jobs are kept
 * @param batchSize jobs deleted per transaction; the write lock is released between
 * batches
 * @param batchPause after each batch the cleaner waits this multiple of the batch's own
 * duration, so other writers (workers of this and other processes) get the lock and the
 * CPU; {@code 3.0} holds the lock at most a quarter of the time
 * @param lease how long the cleanup lease holds without renewal; it is renewed after
 * every batch, and a cleaner that died leaves it to expire
 * @param reclaimPagesPerStep free pages handed back to the file system per incremental
 * vacuum step (each step is one short write transaction)
 * @param maxReclaimSteps incremental vacuum steps per run at most; the rest is reclaimed
 * by the next runs
 * @param workerRowsKeptFor the row of a worker silent for longer is deleted by each run
 * (a process that died without unregistering); {@code null} keeps them
 */
public record RetentionSettings(RetentionPolicy policy, int batchSize, double batchPause, Duration lease,
		int reclaimPagesPerStep, int maxReclaimSteps, Duration workerRowsKeptFor) {

	/**
	 * Default of {@link #workerRowsKeptFor()}: ten times the default time after which a
	 * worker counts as dead.
	 */
	public static final Duration DEFAULT_WORKER_ROWS_KEPT_FOR = Duration.ofMinutes(30);

	/** Settings with the default {@link #workerRowsKeptFor()}. */
	public RetentionSettings(RetentionPolicy policy, int batchSize, double batchPause, Duration lease,
			int reclaimPagesPerStep, int maxReclaimSteps) {
		this(policy, batchSize, batchPause, lease, reclaimPagesPerStep, maxReclaimSteps, DEFAULT_WORKER_ROWS_KEPT_FOR);
	}

	/**
	 * Write lock held at most a quarter of the time, 30-second lease, 4 MiB (at 4 KiB
	 * pages) per vacuum step, 250 steps a run.
	 */
	public static RetentionSettings of(RetentionPolicy policy, int batchSize) {
		return new RetentionSettings(policy, batchSize, 3.0, Duration.ofSeconds(30), 1024, 250);
	}

	public RetentionSettings {
		Objects.requireNonNull(policy, "'policy' must not be null");
		Objects.requireNonNull(lease, "'lease' must not be null");
		if (batchSize <= 0) {
			throw new IllegalArgumentException("jobqueue.retention.batch-size must be positive (got " + batchSize
					+ "); 5000 deletes quickly without holding the write lock long");
		}
		if (batchPause < 0 || Double.isNaN(batchPause)) {
			throw new IllegalArgumentException("The pause between retention batches must be zero or positive");
		}
		if (lease.isZero() || lease.isNegative()) {
			throw new IllegalArgumentException("The retention lease must be positive");
		}
		if (reclaimPagesPerStep <= 0 || maxReclaimSteps < 0) {
			throw new IllegalArgumentException("Vacuum steps must free a positive number of pages");
		}
		if (workerRowsKeptFor != null && (workerRowsKeptFor.isZero() || workerRowsKeptFor.isNegative())) {
			throw new IllegalArgumentException(
					"Worker rows must be kept for a positive time, got " + workerRowsKeptFor);
		}
	}

	public RetentionSettings withBatchPause(double batchPause) {
		return new RetentionSettings(this.policy, this.batchSize, batchPause, this.lease, this.reclaimPagesPerStep,
				this.maxReclaimSteps, this.workerRowsKeptFor);
	}

	public RetentionSettings withLease(Duration lease) {
		return new RetentionSettings(this.policy, this.batchSize, this.batchPause, lease, this.reclaimPagesPerStep,
				this.maxReclaimSteps, this.workerRowsKeptFor);
	}

	public RetentionSettings withWorkerRowsKeptFor(Duration workerRowsKeptFor) {
		return new RetentionSettings(this.policy, this.batchSize, this.batchPause, this.lease, this.reclaimPagesPerStep,
				this.maxReclaimSteps, workerRowsKeptFor);
	}

}
