package dev.jobqueue.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

import dev.jobqueue.core.Ticker;

/**
 * A clock tests move by hand, with a monotonic {@link Ticker} beside it: {@link #advance}
 * moves both (time passes), {@link #step} and {@link #setInstant} move only the wall
 * clock (someone set the machine's time).
 */
public final class MutableClock extends Clock {

	private volatile Instant instant;

	private final AtomicLong elapsedNanos = new AtomicLong();

	public MutableClock(Instant instant) {
		this.instant = instant;
	}

	public static MutableClock startingAt(String instant) {
		return new MutableClock(Instant.parse(instant));
	}

	public void setInstant(Instant instant) {
		this.instant = instant;
	}

	public synchronized void advance(Duration duration) {
		this.instant = this.instant.plus(duration);
		this.elapsedNanos.addAndGet(duration.toNanos());
	}

	/** A step of the wall clock (back when negative); no time passes. */
	public synchronized void step(Duration duration) {
		this.instant = this.instant.plus(duration);
	}

	/** Time as it passes for this clock: moved by {@link #advance}, never by a step. */
	public Ticker ticker() {
		return this.elapsedNanos::get;
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		return this;
	}

	@Override
	public Instant instant() {
		return this.instant;
	}

}
