package dev.jobqueue.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * The queue's clock in a test: it stands still until the test moves it forward, so due
 * times, retry backoffs, lease expiries and cron ticks come when the test says, without
 * sleeping. It never moves backwards: the queue's bookkeeping (leases, the order of
 * events) assumes time does not go back.
 */
public final class TestQueueClock extends Clock {

	private volatile Instant instant;

	public TestQueueClock(Instant start) {
		this.instant = Objects.requireNonNull(start, "'start' must not be null");
	}

	/**
	 * Moves the clock forward.
	 * @throws IllegalArgumentException if {@code duration} is negative
	 */
	public synchronized Instant advance(Duration duration) {
		Objects.requireNonNull(duration, "'duration' must not be null");
		if (duration.isNegative()) {
			throw new IllegalArgumentException("The queue's clock only moves forward, but was asked to move by "
					+ duration + ". Pass a positive duration; to start a test at an earlier time, use a new context "
					+ "(the clock starts when the context starts).");
		}
		this.instant = this.instant.plus(duration);
		return this.instant;
	}

	/**
	 * Moves the clock forward to {@code target}.
	 * @throws IllegalArgumentException if {@code target} is before the clock's time
	 */
	public synchronized Instant advanceTo(Instant target) {
		Objects.requireNonNull(target, "'target' must not be null");
		if (target.isBefore(this.instant)) {
			throw new IllegalArgumentException("The queue's clock only moves forward: it reads " + this.instant
					+ ", and " + target + " is earlier. Move it to a later instant, or by a positive duration.");
		}
		this.instant = target;
		return target;
	}

	@Override
	public Instant instant() {
		return this.instant;
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	/** A view of this clock in another zone: it moves when this one moves. */
	@Override
	public Clock withZone(ZoneId zone) {
		Objects.requireNonNull(zone, "'zone' must not be null");
		TestQueueClock source = this;
		return new Clock() {

			@Override
			public Instant instant() {
				return source.instant();
			}

			@Override
			public ZoneId getZone() {
				return zone;
			}

			@Override
			public Clock withZone(ZoneId other) {
				return source.withZone(other);
			}

		};
	}

}
