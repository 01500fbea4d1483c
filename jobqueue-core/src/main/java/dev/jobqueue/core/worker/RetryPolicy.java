package dev.jobqueue.core.worker;

import java.time.Duration;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with "equal jitter", capped: attempt {@code n} waits a random time
 * between half and all of {@code min(max, initial × 2^(n-1))}. The jitter keeps jobs that
 * failed together (an upstream outage) from coming back together.
 */
public final class RetryPolicy {

	private final Duration initialBackoff;

	private final Duration maxBackoff;

	private final DoubleSupplier random;

	public RetryPolicy(Duration initialBackoff, Duration maxBackoff, DoubleSupplier random) {
		Objects.requireNonNull(initialBackoff, "'initialBackoff' must not be null");
		Objects.requireNonNull(maxBackoff, "'maxBackoff' must not be null");
		Objects.requireNonNull(random, "'random' must not be null");
		if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
			throw new IllegalArgumentException("Retry backoff needs 0 <= initial-backoff <= max-backoff, got "
					+ initialBackoff + " and " + maxBackoff);
		}
		this.initialBackoff = initialBackoff;
		this.maxBackoff = maxBackoff;
		this.random = random;
	}

	/** The wait before the attempt after failed attempt {@code attempt} (1-based). */
	public Duration backoff(int attempt) {
		long initial = this.initialBackoff.toMillis();
		long cap = this.maxBackoff.toMillis();
		int shift = Math.min(Math.max(attempt - 1, 0), 40);
		long base = (initial > (cap >> shift)) ? cap : Math.min(cap, initial << shift);
		long half = base / 2;
		return Duration.ofMillis(half + (long) (this.random.getAsDouble() * (base - half)));
	}

}
