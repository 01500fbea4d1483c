package dev.jobqueue;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by a handler (or by {@link JobContext#snooze(Duration)}) to run the job again
 * later without using up an attempt. The number of snoozes per job is capped by
 * {@code jobqueue.worker.max-snoozes}.
 */
public class JobSnoozedException extends RuntimeException {

	private final Duration delay;

	public JobSnoozedException(Duration delay) {
		super("snoozed for " + delay, null, false, false);
		Objects.requireNonNull(delay, "'delay' must not be null");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("A snooze delay must not be negative, got " + delay);
		}
		this.delay = delay;
	}

	public Duration getDelay() {
		return this.delay;
	}

}
