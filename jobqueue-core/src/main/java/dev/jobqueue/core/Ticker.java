package dev.jobqueue.core;

/**
 * A monotonic clock for local deadlines: when to renew leases next, when a handler's
 * timeout passes, how often a heartbeat is written. Unlike the wall clock
 * ({@link java.time.Clock}), which the queue uses only for what it stores, it never steps
 * back or jumps forward when the machine's time is set, so a clock step neither stops a
 * worker renewing its leases nor times out every handler at once. Tests inject one they
 * move by hand.
 */
@FunctionalInterface
public interface Ticker {

	/** {@link System#nanoTime()}. */
	Ticker SYSTEM = System::nanoTime;

	/**
	 * Nanoseconds since an arbitrary origin; only differences between two readings mean
	 * anything (compare with {@code a - b < 0}, not {@code a < b}).
	 */
	long nanos();

	/** Whether {@code deadline} has come at {@code now}, both readings of a ticker. */
	static boolean reached(long now, long deadline) {
		return now - deadline >= 0;
	}

}
