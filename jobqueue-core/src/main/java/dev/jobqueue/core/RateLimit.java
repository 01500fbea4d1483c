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
 * @param window the window's length: positive, in whole milliseconds (the unit the stores
 * count in), at most {@link #MAX_WINDOW}
 */
public record RateLimit(int permits, Duration window) {

	/** What a valid value looks like, for messages. */
	public static final String EXAMPLE = "\"100/1s\" (100 starts in any second), \"10/1m\", \"5000/1d\" or \"3/PT30S\"";

	/**
	 * The longest window: a year and a day. Longer ones are quotas, not rates, and would
	 * take the start of the window before the first representable instant.
	 */
	public static final Duration MAX_WINDOW = Duration.ofDays(366);

	private static final String WRITE_IT = "Write it as permits/window, for example " + EXAMPLE + ".";

	private static final String WRITE_THE_WINDOW = "Write the window in ms, s, m, h or d (a number before the unit, "
			+ "or the unit alone for one), or in ISO-8601 such as PT30S; for example " + EXAMPLE + ".";

	private static final Pattern SIMPLE_WINDOW = Pattern.compile("(\\d*)(ms|s|m|h|d)");

	public RateLimit {
		Objects.requireNonNull(window, "'window' must not be null");
		String problem = problem(permits, window, window.toString());
		if (problem != null) {
			throw new IllegalArgumentException("A rate limit of " + permits + " per " + window + " " + problem);
		}
	}

	/**
	 * Reads {@code "<permits>/<window>"}: the window in Spring's simple form
	 * ({@code 500ms}, {@code 1s}, {@code 10m}, {@code 1h}, {@code 1d}, or the unit alone
	 * for one of it; any case) or ISO-8601 ({@code PT30S}). Spaces around the parts are
	 * allowed.
	 * @param text the limit as written
	 * @return the limit
	 * @throws IllegalArgumentException whose message starts with the text in quotes and
	 * says what is wrong in its first sentence and how to write it in the next, with
	 * {@link #EXAMPLE}
	 */
	public static RateLimit parse(String text) {
		if (text == null || text.isBlank()) {
			throw new IllegalArgumentException("A rate limit is empty. " + WRITE_IT);
		}
		String quoted = "\"" + text + "\"";
		String stripped = text.strip();
		int slash = stripped.indexOf('/');
		if (slash < 0) {
			throw new IllegalArgumentException(quoted + " is not a rate limit: it has no window. " + WRITE_IT);
		}
		String permitsPart = stripped.substring(0, slash).strip();
		String windowPart = stripped.substring(slash + 1).strip();
		if (!permitsPart.matches("\\d+")) {
			throw new IllegalArgumentException(quoted + " is not a rate limit: the permits before the '/' must be a "
					+ "whole number of 1 or more. " + WRITE_IT);
		}
		if (windowPart.isEmpty()) {
			throw new IllegalArgumentException(
					quoted + " is not a rate limit: it has no window after the '/'. " + WRITE_IT);
		}
		int permits;
		try {
			permits = Integer.parseInt(permitsPart);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(quoted + " allows more starts per window than a rate limit counts ("
					+ Integer.MAX_VALUE + " at most). " + WRITE_IT);
		}
		Duration window = window(windowPart, quoted);
		String problem = problem(permits, window, "\"" + windowPart + "\"");
		if (problem != null) {
			throw new IllegalArgumentException(
					quoted + " " + problem + ". " + ((permits < 1) ? WRITE_IT : WRITE_THE_WINDOW));
		}
		return new RateLimit(permits, window);
	}

	/**
	 * What is wrong with a limit of these parts, or {@code null}; {@code written} is the
	 * window as the user wrote it.
	 */
	private static String problem(int permits, Duration window, String written) {
		if (permits < 1) {
			return "allows no starts: a rate limit allows at least 1 start per window";
		}
		if (window.isZero() || window.isNegative()) {
			return "has the window " + written + ": a window must be positive";
		}
		if (window.compareTo(MAX_WINDOW) > 0) {
			return "has the window " + written + ", longer than the " + MAX_WINDOW.toDays()
					+ " days a rate limit counts at most";
		}
		if (window.getNano() % 1_000_000 != 0) {
			return "has the window " + written + ", finer than the whole milliseconds a rate limit counts in";
		}
		return null;
	}

	private static Duration window(String window, String quoted) {
		Matcher simple = SIMPLE_WINDOW.matcher(window.toLowerCase(Locale.ROOT));
		if (simple.matches()) {
			try {
				long count = simple.group(1).isEmpty() ? 1 : Long.parseLong(simple.group(1));
				return switch (simple.group(2)) {
					case "ms" -> Duration.ofMillis(count);
					case "s" -> Duration.ofSeconds(count);
					case "m" -> Duration.ofMinutes(count);
					case "h" -> Duration.ofHours(count);
					default -> Duration.ofDays(count);
				};
			}
			catch (NumberFormatException | ArithmeticException ex) {
				// Too many digits for any duration: longer than the longest window.
				return MAX_WINDOW.plusDays(1);
			}
		}
		try {
			return Duration.parse(window);
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException(
					quoted + " has the window \"" + window + "\", which is not a " + "duration. " + WRITE_THE_WINDOW);
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
