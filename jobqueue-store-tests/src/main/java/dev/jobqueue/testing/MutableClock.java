package dev.jobqueue.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand. */
public final class MutableClock extends Clock {

	private volatile Instant instant;

	public MutableClock(Instant instant) {
		this.instant = instant;
	}

	public static MutableClock startingAt(String instant) {
		return new MutableClock(Instant.parse(instant));
	}

	public void setInstant(Instant instant) {
		this.instant = instant;
	}

	public void advance(Duration duration) {
		this.instant = this.instant.plus(duration);
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
