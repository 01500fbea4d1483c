package dev.jobqueue.core;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * At most {@code permits} job starts in any window of {@code window} (a sliding window:
 * every span of that length, not calendar buckets), written {@code "100/1s"}.
 *
 * @param permits job starts allowed in any window, at least 1
 * @param window the window's length, positive
 */
public record RateLimit(int permits, Duration window) {

	/** What a valid value looks like, for messages. */
	public static final String EXAMPLE = "\"100/1s\" (100 starts in any second), \"10/1m\", \"5000/1d\" or \"3/PT30S\"";

	private static final Pattern FORM = Pattern.compile("(\\d+)\\s*/\\s*(\\S+)");

	private static final Pattern SIMPLE_WINDOW = Pattern.compile("(\\d*)(ms|s|m|h|d)");

	public RateLimit {
		Objects.requireNonNull(window, "'window' must not be null");
		if (permits < 1) {
			throw new IllegalArgumentException(
					"a rate limit allows at least 1 start per window, not " + permits + "; for example " + EXAMPLE);
		}
		if (window.isZero() || window.isNegative()) {
			throw new IllegalArgumentException(
					"a rate limit's window must be positive, not " + window + "; for example " + EXAMPLE);
		}
	}

	/**
	 * Reads {@code "<permits>/<window>"}: the window in Spring's simple form
	 * ({@code 500ms}, {@code 1s}, {@code 10m}, {@code 1h}, {@code 1d}, or the unit alone
	 * for one of it) or ISO-8601 ({@code PT30S}).
	 * @throws IllegalArgumentException naming what is wrong, with valid examples
	 */
	public static RateLimit parse(String text) {
		if (text == null || text.isBlank()) {
			throw new IllegalArgumentException(
					"a rate limit is empty; write it as permits/window, for example " + EXAMPLE);
		}
		Matcher form = FORM.matcher(text.strip());
		if (!form.matches()) {
			throw new IllegalArgumentException(
					"'" + text + "' is not a rate limit; write it as permits/window, " + "for example " + EXAMPLE);
		}
		int permits;
		try {
			permits = Integer.parseInt(form.group(1));
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("'" + text + "' allows more starts per window than a rate limit can "
					+ "count (at most " + Integer.MAX_VALUE + "); for example " + EXAMPLE);
		}
		Duration window = window(form.group(2), text);
		try {
			return new RateLimit(permits, window);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("'" + text + "': " + ex.getMessage());
		}
	}

	private static Duration window(String window, String text) {
		Matcher simple = SIMPLE_WINDOW.matcher(window.toLowerCase(Locale.ROOT));
		if (simple.matches()) {
			long amount = simple.group(1).isEmpty() ? 1 : Long.parseLong(simple.group(1));
			return switch (simple.group(2)) {
				case "ms" -> Duration.ofMillis(amount);
				case "s" -> Duration.ofSeconds(amount);
				case "m" -> Duration.ofMinutes(amount);
				case "h" -> Duration.ofHours(amount);
				default -> Duration.ofDays(amount);
			};
		}
		try {
			return Duration.parse(window);
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException("'" + text + "' has the window '" + window + "', which is not a "
					+ "duration: use ms, s, m, h or d (or ISO-8601 such as PT30S), for example " + EXAMPLE);
		}
	}

	@Override
	public String toString() {
		return this.permits + "/" + Windows.format(this.window);
	}

	/** Windows written back the way users write them. */
	private static final class Windows {

		static String format(Duration window) {
			long millis = window.toMillis();
			if (millis % 86_400_000 == 0) {
				return (millis / 86_400_000) + "d";
			}
			if (millis % 3_600_000 == 0) {
				return (millis / 3_600_000) + "h";
			}
			if (millis % 60_000 == 0) {
				return (millis / 60_000) + "m";
			}
			if (millis % 1000 == 0) {
				return (millis / 1000) + "s";
			}
			return millis + "ms";
		}

	}

}
