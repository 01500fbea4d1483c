package dev.jobqueue;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * When a recurring job runs: a Spring cron expression in a time zone, or a fixed
 * interval.
 *
 * <ul>
 * <li>{@code Schedule.cron("0 0 * * * *")}: six fields (second minute hour day-of-month
 * month day-of-week), as {@code @Scheduled(cron = ...)} reads them, including macros such
 * as {@code @daily}. Without a zone the cron is read in {@code jobqueue.scheduling.zone},
 * by default the JVM's zone.</li>
 * <li>{@code Schedule.every(Duration.ofMinutes(5))}: ticks at whole multiples of the
 * interval since the epoch (UTC), so every process computes the same ticks: every 5
 * minutes fires at :00, :05, :10 ... Intervals are at least one second.</li>
 * </ul>
 * Instances are immutable and compare by value.
 */
public final class Schedule {

	private static final String CRON_PREFIX = "cron:";

	private static final String EVERY_PREFIX = "every:";

	private final String expression;

	private final @Nullable Cron cron;

	private final @Nullable Duration interval;

	private final @Nullable ZoneId zone;

	private final Misfire misfire;

	private Schedule(String expression, @Nullable Cron cron, @Nullable Duration interval, @Nullable ZoneId zone,
			Misfire misfire) {
		this.expression = expression;
		this.cron = cron;
		this.interval = interval;
		this.zone = zone;
		this.misfire = misfire;
	}

	/**
	 * A cron schedule read in the default zone.
	 * @throws IllegalArgumentException if the expression is not a valid Spring cron
	 * expression
	 */
	public static Schedule cron(String expression) {
		return cron(expression, null);
	}

	/**
	 * A cron schedule read in {@code zone} ({@code null} for the default zone).
	 * @throws IllegalArgumentException if the expression is not a valid Spring cron
	 * expression
	 */
	public static Schedule cron(String expression, @Nullable ZoneId zone) {
		if (expression == null || expression.isBlank()) {
			throw new IllegalArgumentException("A cron expression must not be empty: use six fields such as "
					+ "\"0 0 * * * *\" (every hour) or a macro such as \"@daily\"");
		}
		String trimmed = expression.strip();
		Cron parsed;
		try {
			parsed = Cron.parse(trimmed);
		}
		catch (IllegalArgumentException ex) {
			String withSeconds = "0 " + trimmed;
			if (trimmed.split("\\s+").length == 5 && parses(withSeconds)) {
				// The crontab form: Spring's cron reads its first field as the second.
				throw new IllegalArgumentException("'" + trimmed + "' has 5 fields, as crontab writes them, but a "
						+ "Spring cron expression has 6, seconds first (second minute hour day-of-month month "
						+ "day-of-week). Write \"" + withSeconds + "\" for the same times", ex);
			}
			throw new IllegalArgumentException("'" + trimmed + "' is not a valid cron expression: " + ex.getMessage()
					+ ". Use Spring's six fields (second minute hour day-of-month month day-of-week), for example "
					+ "\"0 0 * * * *\" for every hour", ex);
		}
		return new Schedule(CRON_PREFIX + trimmed, parsed, null, zone, Misfire.DEFAULT);
	}

	private static boolean parses(String expression) {
		try {
			Cron.parse(expression);
			return true;
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	/**
	 * A fixed interval, ticking at whole multiples of it since the epoch.
	 * @throws IllegalArgumentException if the interval is shorter than a second or not
	 * whole milliseconds
	 */
	public static Schedule every(Duration interval) {
		Objects.requireNonNull(interval, "'interval' must not be null");
		if (interval.compareTo(Duration.ofSeconds(1)) < 0 || interval.toNanos() % 1_000_000 != 0) {
			throw new IllegalArgumentException(
					"A schedule interval must be at least one second and whole " + "milliseconds, got " + interval);
		}
		return new Schedule(EVERY_PREFIX + interval, null, interval, null, Misfire.DEFAULT);
	}

	/**
	 * Reads the form {@link #expression()} returns: {@code cron:<expression>} or
	 * {@code every:<duration>} (ISO-8601 such as {@code PT5M}).
	 * @throws IllegalArgumentException if the text is neither
	 */
	public static Schedule parse(String expression, @Nullable ZoneId zone) {
		Objects.requireNonNull(expression, "'expression' must not be null");
		if (expression.startsWith(CRON_PREFIX)) {
			return cron(expression.substring(CRON_PREFIX.length()), zone);
		}
		if (expression.startsWith(EVERY_PREFIX)) {
			try {
				return every(Duration.parse(expression.substring(EVERY_PREFIX.length())));
			}
			catch (DateTimeParseException ex) {
				throw new IllegalArgumentException("'" + expression + "' does not hold an ISO-8601 duration", ex);
			}
		}
		throw new IllegalArgumentException(
				"'" + expression + "' is not a schedule: use 'cron:<expression>' or " + "'every:<ISO-8601 duration>'");
	}

	/**
	 * This schedule read in another zone (cron only; intervals do not depend on a zone).
	 */
	public Schedule inZone(@Nullable ZoneId zone) {
		return new Schedule(this.expression, this.cron, this.interval, zone, this.misfire);
	}

	/** This schedule with another policy for missed ticks. */
	public Schedule withMisfire(@Nullable Misfire misfire) {
		return new Schedule(this.expression, this.cron, this.interval, this.zone,
				(misfire != null) ? misfire : Misfire.DEFAULT);
	}

	/** {@code cron:<expression>} or {@code every:<ISO-8601 duration>}. */
	public String expression() {
		return this.expression;
	}

	/** The zone cron fields are read in, or {@code null} for the default zone. */
	public @Nullable ZoneId zone() {
		return this.zone;
	}

	public Misfire misfire() {
		return this.misfire;
	}

	public boolean isCron() {
		return this.cron != null;
	}

	/**
	 * The first tick strictly after {@code after}, or {@code null} if there is none (a
	 * cron for a date that never comes). Cron schedules without a zone are read in UTC
	 * here.
	 */
	public @Nullable Instant nextAfter(Instant after) {
		if (this.interval != null) {
			long step = this.interval.toMillis();
			long millis = after.toEpochMilli();
			return Instant.ofEpochMilli(Math.floorDiv(millis, step) * step + step);
		}
		try {
			ZonedDateTime next = this.cron
				.next(ZonedDateTime.ofInstant(after, (this.zone != null) ? this.zone : ZoneOffset.UTC));
			return (next != null) ? next.toInstant() : null;
		}
		catch (DateTimeException ex) {
			return null;
		}
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof Schedule that && this.expression.equals(that.expression)
				&& Objects.equals(this.zone, that.zone) && this.misfire == that.misfire;
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.expression, this.zone, this.misfire);
	}

	@Override
	public String toString() {
		return this.expression + ((this.zone != null) ? " (" + this.zone + ")" : "");
	}

}
