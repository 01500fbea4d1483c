package dev.jobqueue.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Durations as options take them: {@code 7d}, {@code 12h}, {@code 30m}, {@code 45s},
 * {@code 500ms}, or ISO-8601 ({@code PT15M}).
 */
final class Durations implements ITypeConverter<Duration> {

	private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

	@Override
	public Duration convert(String value) {
		return parse(value);
	}

	static Duration parse(String value) {
		String text = value.strip().toLowerCase(Locale.ROOT);
		Matcher simple = SIMPLE.matcher(text);
		if (simple.matches()) {
			long amount = Long.parseLong(simple.group(1));
			return switch (simple.group(2)) {
				case "ms" -> Duration.ofMillis(amount);
				case "s" -> Duration.ofSeconds(amount);
				case "m" -> Duration.ofMinutes(amount);
				case "h" -> Duration.ofHours(amount);
				default -> Duration.ofDays(amount);
			};
		}
		try {
			return Duration.parse(value.strip().toUpperCase(Locale.ROOT));
		}
		catch (DateTimeParseException ex) {
			throw new TypeConversionException(
					"'" + value + "' is not a duration: use 7d, 12h, 30m, 45s, 500ms or ISO-8601 such as PT15M");
		}
	}

}
