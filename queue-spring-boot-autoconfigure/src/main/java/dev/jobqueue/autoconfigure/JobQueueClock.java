package dev.jobqueue.autoconfigure;

import java.time.Clock;
import java.util.Objects;

/**
 * The clock the queue reads for due times, backoffs, leases, schedules and retention. It
 * is a bean of its own type rather than a {@link Clock} bean, so a {@code Clock} the
 * application declares for its own use (a {@code Clock.fixed} in tests, say) does not
 * stop the queue's delays from coming due; and the queue declares no {@code Clock} bean
 * that would clash with the application's. Declare a {@code JobQueueClock} bean to move
 * the queue's time on purpose.
 */
public final class JobQueueClock {

	private final Clock clock;

	public JobQueueClock(Clock clock) {
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
	}

	/** The system clock in UTC. */
	public static JobQueueClock system() {
		return new JobQueueClock(Clock.systemUTC());
	}

	public Clock clock() {
		return this.clock;
	}

}
