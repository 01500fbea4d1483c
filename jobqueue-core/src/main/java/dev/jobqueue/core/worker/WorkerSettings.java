package dev.jobqueue.core.worker;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link JobWorker} runs.
 *
 * @param workerId this worker's id, unique among processes sharing the database
 * @param concurrency most jobs running at once
 * @param pollInterval longest wait between claims when no wake-up arrives
 * @param lease how long a claim holds a job without a renewal; renewed every third of it
 * @param shutdownTimeout how long a stop waits for running jobs before handing them back
 * @param maxSnoozes snoozes a job may take before it fails with
 * {@code SNOOZE:LIMIT_REACHED}
 * @param cancelTimeout how long a cancelled run may go on after its interrupt; then the
 * job is recorded as cancelled with a {@code CANCEL_IGNORED} event, whatever the handler
 * still does
 * @param maxResultBytes largest result a handler may return, as UTF-8 JSON; a larger one
 * fails the run with {@code INVALID_OUTPUT:RESULT_TOO_LARGE}
 * @param claimAhead how many jobs beyond its free slots the worker may hold claimed,
 * waiting for a slot, so that a busy worker claims (and commits) once per many jobs; 0
 * claims no more than the free slots; at most {@value #MAX_CLAIM_AHEAD}. With
 * {@code claimAheadFollowsPace}, the least it holds
 * @param claimAheadFollowsPace whether the bound grows with the worker's pace, to hold
 * about a quarter second of work, up to {@value #MAX_CLAIM_AHEAD}: the default's way,
 * when no bound is set
 */
public record WorkerSettings(String workerId, int concurrency, Duration pollInterval, Duration lease,
		Duration shutdownTimeout, int maxSnoozes, Duration cancelTimeout, long maxResultBytes, int claimAhead,
		boolean claimAheadFollowsPace) {

	/** Default of {@link #cancelTimeout()}. */
	public static final Duration DEFAULT_CANCEL_TIMEOUT = Duration.ofSeconds(10);

	/** Default of {@link #maxResultBytes()}: 2 MiB, as the default largest payload. */
	public static final long DEFAULT_MAX_RESULT_BYTES = 2L * 1024 * 1024;

	/**
	 * Largest {@link #claimAhead()}: a process holding more jobs than it can start soon
	 * keeps them from idle processes, and renews all their leases in one statement.
	 */
	public static final int MAX_CLAIM_AHEAD = 1000;

	/**
	 * Default of {@link #claimAhead()}: {@value #CLAIM_AHEAD_PER_SLOT} jobs per slot, at
	 * least {@value #MIN_DEFAULT_CLAIM_AHEAD}.
	 */
	public static final int CLAIM_AHEAD_PER_SLOT = 16;

	/** The smallest default {@link #claimAhead()}, for workers with few slots. */
	public static final int MIN_DEFAULT_CLAIM_AHEAD = 64;

	public WorkerSettings {
		Objects.requireNonNull(workerId, "'workerId' must not be null");
		if (concurrency < 1) {
			throw new IllegalArgumentException("jobqueue.worker.concurrency must be at least 1, got " + concurrency);
		}
		requirePositive(pollInterval, "jobqueue.worker.poll-interval");
		requirePositive(lease, "jobqueue.worker.lease");
		if (lease.toMillis() < 300) {
			throw new IllegalArgumentException("jobqueue.worker.lease must be at least 300ms, got " + lease);
		}
		Objects.requireNonNull(shutdownTimeout, "'shutdownTimeout' must not be null");
		if (maxSnoozes < 0) {
			throw new IllegalArgumentException("jobqueue.worker.max-snoozes must not be negative, got " + maxSnoozes);
		}
		cancelTimeout = (cancelTimeout != null) ? cancelTimeout : DEFAULT_CANCEL_TIMEOUT;
		if (cancelTimeout.isNegative()) {
			throw new IllegalArgumentException(
					"jobqueue.worker.cancel-timeout must not be negative, got " + cancelTimeout);
		}
		if (maxResultBytes < 1) {
			throw new IllegalArgumentException("jobqueue.max-result-size must be positive, got " + maxResultBytes);
		}
		requireValidClaimAhead(claimAhead);
	}

	/** Settings with a fixed claim-ahead bound. */
	public WorkerSettings(String workerId, int concurrency, Duration pollInterval, Duration lease,
			Duration shutdownTimeout, int maxSnoozes, Duration cancelTimeout, long maxResultBytes, int claimAhead) {
		this(workerId, concurrency, pollInterval, lease, shutdownTimeout, maxSnoozes, cancelTimeout, maxResultBytes,
				claimAhead, false);
	}

	/**
	 * Settings with the default claim-ahead for the concurrency, following the worker's
	 * pace.
	 */
	public WorkerSettings(String workerId, int concurrency, Duration pollInterval, Duration lease,
			Duration shutdownTimeout, int maxSnoozes, Duration cancelTimeout, long maxResultBytes) {
		this(workerId, concurrency, pollInterval, lease, shutdownTimeout, maxSnoozes, cancelTimeout, maxResultBytes,
				defaultClaimAhead(concurrency), true);
	}

	/** Settings with the default largest result. */
	public WorkerSettings(String workerId, int concurrency, Duration pollInterval, Duration lease,
			Duration shutdownTimeout, int maxSnoozes, Duration cancelTimeout) {
		this(workerId, concurrency, pollInterval, lease, shutdownTimeout, maxSnoozes, cancelTimeout,
				DEFAULT_MAX_RESULT_BYTES);
	}

	/** Settings with the default cancel timeout. */
	public WorkerSettings(String workerId, int concurrency, Duration pollInterval, Duration lease,
			Duration shutdownTimeout, int maxSnoozes) {
		this(workerId, concurrency, pollInterval, lease, shutdownTimeout, maxSnoozes, DEFAULT_CANCEL_TIMEOUT);
	}

	/**
	 * The default {@link #claimAhead()} of a worker with {@code concurrency} slots.
	 */
	public static int defaultClaimAhead(int concurrency) {
		return Math.min(MAX_CLAIM_AHEAD, Math.max(MIN_DEFAULT_CLAIM_AHEAD, CLAIM_AHEAD_PER_SLOT * concurrency));
	}

	/**
	 * Checks a claim-ahead bound.
	 * @throws IllegalArgumentException saying what to set, when it cannot work
	 */
	public static void requireValidClaimAhead(int claimAhead) {
		if (claimAhead < 0 || claimAhead > MAX_CLAIM_AHEAD) {
			throw new IllegalArgumentException("jobqueue.worker.claim-ahead must be between 0 and " + MAX_CLAIM_AHEAD
					+ ", got " + claimAhead + ": set it to how many jobs beyond its free slots a worker may hold "
					+ "claimed (0 turns claim-ahead off; leave it unset for the default of " + CLAIM_AHEAD_PER_SLOT
					+ " per slot, at least " + MIN_DEFAULT_CLAIM_AHEAD + ")");
		}
	}

	/** This with another claim-ahead bound, fixed. */
	public WorkerSettings withClaimAhead(int claimAhead) {
		return new WorkerSettings(this.workerId, this.concurrency, this.pollInterval, this.lease, this.shutdownTimeout,
				this.maxSnoozes, this.cancelTimeout, this.maxResultBytes, claimAhead, false);
	}

	private static void requirePositive(Duration value, String name) {
		Objects.requireNonNull(value, () -> "'" + name + "' must not be null");
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be positive, got " + value);
		}
	}

	/**
	 * How often leases are renewed: a third of the lease, so two renewals may fail before
	 * it expires.
	 */
	public Duration renewalInterval() {
		return this.lease.dividedBy(3);
	}

}
