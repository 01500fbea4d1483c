package dev.jobqueue;

import java.time.DayOfWeek;
import java.time.LocalTime;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.time.temporal.ValueRange;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A cron expression in the syntax of Spring's {@code CronExpression}
 * ({@code @Scheduled(cron = ...)}), and the next time it matches. Six fields: second
 * minute hour day-of-month month day-of-week, each {@code *}, a number, a range
 * {@code a-b}, a step <code>&#42;/n</code>, {@code a/n} or {@code a-b/n}, or a
 * comma-separated list of those; {@code ?} for a whole day field; JAN-DEC and SUN-SAT
 * (any case); 0 or 7 for Sunday; the macros
 * {@code @yearly @annually @monthly @weekly @daily @midnight @hourly}; and Quartz's
 * {@code L}, {@code L-n}, {@code LW}, {@code nW} in day-of-month and {@code dL},
 * {@code d#n} in day-of-week.
 * <p>
 * {@link #next} walks the fields from day-of-week down to the second the way Spring does,
 * moving the time with {@link ZonedDateTime} arithmetic (hours and finer on the time
 * line, days and coarser on the local calendar), so it gives Spring's results across
 * daylight-saving changes too: a local time skipped by a gap is not fired that day, and a
 * time in a repeated hour fires once in each offset.
 * <p>
 * Unlike Spring it rejects signed numbers, {@code L-n} past 30, {@code d#n} past 5 and
 * {@code ?} inside a list, and it takes any whitespace between fields and lower-case
 * {@code l}/{@code w}.
 */
final class Cron {

	/**
	 * Bound of every search, as in Spring: no match within this many steps means none.
	 */
	private static final int MAX_ATTEMPTS = 366;

	private static final Map<String, String> MACROS = Map.of("@yearly", "0 0 0 1 1 *", "@annually", "0 0 0 1 1 *",
			"@monthly", "0 0 0 1 * *", "@weekly", "0 0 0 * * 0", "@daily", "0 0 0 * * *", "@midnight", "0 0 0 * * *",
			"@hourly", "0 0 * * * *");

	private static final List<String> MONTHS = List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP",
			"OCT", "NOV", "DEC");

	private static final List<String> DAYS = List.of("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN");

	private static final Pattern NAME = Pattern.compile("[A-Z]{3}");

	/**
	 * Coarsest first: day-of-week, month, day-of-month, hour, minute, second, and zero
	 * nanoseconds.
	 */
	private final Field[] fields;

	private Cron(Field... fields) {
		this.fields = fields;
	}

	/**
	 * Parses six fields or a macro.
	 * @throws IllegalArgumentException naming the field and what is wrong with it
	 */
	static Cron parse(String expression) {
		String trimmed = expression.strip();
		String resolved = MACROS.getOrDefault(trimmed.toLowerCase(Locale.ROOT), trimmed);
		if (resolved.startsWith("@")) {
			throw new IllegalArgumentException("unknown macro '" + trimmed + "', use one of @yearly, @annually, "
					+ "@monthly, @weekly, @daily, @midnight or @hourly");
		}
		String[] parts = resolved.isEmpty() ? new String[0] : resolved.split("\\s+");
		if (parts.length != 6) {
			throw new IllegalArgumentException("found " + parts.length + " fields where 6 are needed");
		}
		return new Cron(field(Unit.DAY_OF_WEEK, parts[5]), field(Unit.MONTH, parts[4]),
				field(Unit.DAY_OF_MONTH, parts[3]), field(Unit.HOUR, parts[2]), field(Unit.MINUTE, parts[1]),
				field(Unit.SECOND, parts[0]), new Bits(Unit.NANO, 1L));
	}

	/**
	 * The first time strictly after {@code after} that matches, in its zone, or
	 * {@code null} if the search ends without one (a date that never comes, such as the
	 * 30th of February).
	 */
	@Nullable ZonedDateTime next(ZonedDateTime after) {
		ZonedDateTime time = after.plusNanos(1);
		for (int i = 0; i < MAX_ATTEMPTS; i++) {
			ZonedDateTime candidate = time;
			for (Field field : this.fields) {
				candidate = field.nextOrSame(candidate);
				if (candidate == null) {
					return null;
				}
			}
			if (candidate.equals(time)) {
				return candidate;
			}
			time = candidate;
		}
		return null;
	}

	// Parsing

	private static Field field(Unit unit, String text) {
		String upper = text.toUpperCase(Locale.ROOT);
		try {
			return switch (unit) {
				case DAY_OF_MONTH -> upper.equals("?") ? bits(unit, "*") : days(unit, upper, "LW", Cron::dayOfMonth);
				case DAY_OF_WEEK ->
					upper.equals("?") ? bits(unit, "*") : days(unit, names(upper, DAYS), "L#", Cron::dayOfWeek);
				case MONTH -> bits(unit, names(upper, MONTHS));
				default -> bits(unit, upper);
			};
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(unit.label() + " field '" + text + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * A day-of-month item: plain ({@code 1-5}) or Quartz ({@code L}, {@code L-n},
	 * {@code LW}, {@code nW}).
	 */
	private static Field dayOfMonth(String item) {
		if (item.matches("L(W|-[0-9]+)?")) {
			boolean weekday = item.equals("LW");
			int offset = item.startsWith("L-") ? number(item.substring(2), 1, 30) : 0;
			return quartz((time) -> onDay(time, lastDay(time, weekday).minusDays(offset)));
		}
		if (item.endsWith("W") && item.length() > 1) {
			int day = value(Unit.DAY_OF_MONTH, item.substring(0, item.length() - 1));
			return quartz((time) -> nearestWeekday(time, day));
		}
		if (item.contains("L") || item.contains("W")) {
			throw new IllegalArgumentException("'" + item + "' is none of L, L-n, LW or nW");
		}
		return bits(Unit.DAY_OF_MONTH, item);
	}

	/**
	 * A day-of-week item, names already numbered: plain ({@code 1-5}) or Quartz
	 * ({@code dL}, {@code d#n}).
	 */
	private static Field dayOfWeek(String item) {
		int hash = item.indexOf('#');
		if ((item.endsWith("L") || hash > 0) && item.length() > 1) {
			int weekday = value(Unit.DAY_OF_WEEK, item.substring(0, (hash > 0) ? hash : item.length() - 1));
			DayOfWeek day = DayOfWeek.of((weekday == 0) ? 7 : weekday);
			if (hash < 0) {
				return quartz((time) -> onDay(time, time.with(TemporalAdjusters.lastInMonth(day))));
			}
			int ordinal = number(item.substring(hash + 1), 1, 5);
			return quartz((time) -> nthInMonth(time, ordinal, day));
		}
		if (item.contains("L") || item.contains("#")) {
			throw new IllegalArgumentException("'" + item + "' is neither dL nor d#n");
		}
		return bits(Unit.DAY_OF_WEEK, item);
	}

	/**
	 * A day field: one set of bits if it is plain; with Quartz items, each item on its
	 * own and the earliest time any of them gives.
	 */
	private static Field days(Unit unit, String text, String quartz, Function<String, Field> item) {
		if (text.chars().noneMatch((c) -> quartz.indexOf(c) >= 0)) {
			return bits(unit, text);
		}
		List<Field> items = Stream.of(text.split(",", -1)).map(item).toList();
		return (time) -> items.stream()
			.map((field) -> field.nextOrSame(time))
			.filter(Objects::nonNull)
			.min(Comparator.naturalOrder())
			.orElse(null);
	}

	/**
	 * Replaces three-letter month or day names by their numbers, JAN = 1 and MON = 1 (SUN
	 * = 7).
	 */
	private static String names(String text, List<String> names) {
		Matcher matcher = NAME.matcher(text);
		StringBuilder numbered = new StringBuilder();
		while (matcher.find()) {
			int index = names.indexOf(matcher.group());
			if (index < 0) {
				throw new IllegalArgumentException("'" + matcher.group() + "' is not one of " + names);
			}
			matcher.appendReplacement(numbered, Integer.toString(index + 1));
		}
		return matcher.appendTail(numbered).toString();
	}

	/**
	 * The values a comma-separated list of {@code *}, {@code a}, {@code a-b}, each with
	 * an optional /step, allows.
	 */
	private static Bits bits(Unit unit, String text) {
		long bits = 0;
		for (String item : text.split(",", -1)) {
			int slash = item.indexOf('/');
			String range = (slash < 0) ? item : item.substring(0, slash);
			int step = (slash < 0) ? 1 : number(item.substring(slash + 1), 0, Integer.MAX_VALUE);
			if (step == 0) {
				throw new IllegalArgumentException("the step in '" + item + "' must be 1 or more");
			}
			int dash = range.indexOf('-');
			int min = range.equals("*") ? unit.min : value(unit, (dash < 0) ? range : range.substring(0, dash));
			int max = range.equals("*") ? unit.max
					: (dash >= 0) ? value(unit, range.substring(dash + 1)) : (slash >= 0) ? unit.max : min;
			if (unit == Unit.DAY_OF_WEEK && dash >= 0 && min == 7) {
				min = 0; // Sunday starting a range is the first day, not the last
			}
			if (min > max) {
				throw new IllegalArgumentException("the range '" + range + "' ends before it starts");
			}
			for (int value = min; value <= max; value += step) {
				bits |= 1L << value;
			}
		}
		if (unit == Unit.DAY_OF_WEEK && (bits & 1) != 0) {
			bits = (bits & ~1L) | (1L << 7); // Sunday is 7 in java.time
		}
		return new Bits(unit, bits);
	}

	private static int value(Unit unit, String text) {
		return number(text, (unit == Unit.DAY_OF_WEEK) ? 0 : unit.min, unit.max); // 0 and
																					// 7
																					// are
																					// Sunday
	}

	private static int number(String text, int min, int max) {
		if (!text.matches("[0-9]{1,9}")) {
			throw new IllegalArgumentException("'" + text + "' is not a number");
		}
		int number = Integer.parseInt(text);
		if (number < min || number > max) {
			throw new IllegalArgumentException(number + " is outside " + min + "-" + max);
		}
		return number;
	}

	// The Quartz day rules: each gives the matching day in the month of the time it is
	// given (or the month after),
	// keeping the time of day when that is the same day and starting at midnight
	// otherwise.

	/** The last day of the month, or with {@code weekday} the last Monday to Friday. */
	private static ZonedDateTime lastDay(ZonedDateTime time, boolean weekday) {
		ZonedDateTime last = time.with(TemporalAdjusters.lastDayOfMonth());
		return weekday ? last.minusDays(Math.max(0, last.getDayOfWeek().getValue() - 5)) : last;
	}

	private static @Nullable ZonedDateTime nearestWeekday(ZonedDateTime time, int day) {
		int current = time.getDayOfMonth();
		DayOfWeek weekday = time.getDayOfWeek();
		if ((current == day && weekday.getValue() < 6) || (weekday == DayOfWeek.FRIDAY && current == day - 1)
				|| (weekday == DayOfWeek.MONDAY && (current == day + 1 || (day == 1 && current == 3)))) {
			return time;
		}
		for (int i = 0; i < MAX_ATTEMPTS; i++) {
			if (current == day) {
				ZonedDateTime shifted = switch (time.getDayOfWeek()) {
					case SATURDAY -> (day == 1) ? time.plusDays(2) : time.minusDays(1);
					case SUNDAY -> time.plusDays(1);
					default -> time;
				};
				return shifted.with(LocalTime.MIDNIGHT);
			}
			time = Unit.DAY_OF_MONTH.advance(time, day);
			current = time.getDayOfMonth();
		}
		return null;
	}

	private static @Nullable ZonedDateTime nthInMonth(ZonedDateTime time, int ordinal, DayOfWeek day) {
		for (int i = 0; i < 12; i++) {
			ZonedDateTime found = time.with(TemporalAdjusters.dayOfWeekInMonth(ordinal, day));
			if (found.getMonth() == time.getMonth()) {
				return onDay(time, found);
			}
			time = found; // no such day this month: try the month it ran into
		}
		return null;
	}

	/**
	 * A Quartz day rule as a field: if the rule lands before the time, it is asked again
	 * from next month.
	 */
	private static Field quartz(UnaryOperator<ZonedDateTime> rule) {
		return (time) -> {
			ZonedDateTime found = rule.apply(time);
			if (found != null && found.compareTo(time) < 0) {
				found = rule.apply(Unit.DAY_OF_MONTH.nextPeriod(time));
				return (found != null) ? Unit.DAY_OF_MONTH.restart(found) : null;
			}
			return found;
		};
	}

	private static ZonedDateTime onDay(ZonedDateTime time, ZonedDateTime day) {
		return (day.getDayOfMonth() == time.getDayOfMonth()) ? time : day.with(LocalTime.MIDNIGHT);
	}

	// Evaluation

	/**
	 * What a field is about and the period that holds it, finest first. Moving a field
	 * restarts the finer ones, except that the day of the week leaves the day of the
	 * month and the month alone.
	 */
	private enum Unit {

		NANO(ChronoField.NANO_OF_SECOND, ChronoUnit.SECONDS), SECOND(ChronoField.SECOND_OF_MINUTE, ChronoUnit.MINUTES),
		MINUTE(ChronoField.MINUTE_OF_HOUR, ChronoUnit.HOURS), HOUR(ChronoField.HOUR_OF_DAY, ChronoUnit.DAYS),
		DAY_OF_MONTH(ChronoField.DAY_OF_MONTH, ChronoUnit.MONTHS), MONTH(ChronoField.MONTH_OF_YEAR, ChronoUnit.YEARS),
		DAY_OF_WEEK(ChronoField.DAY_OF_WEEK, ChronoUnit.WEEKS);

		final ChronoField field;

		final ChronoUnit period;

		final int min;

		final int max;

		Unit(ChronoField field, ChronoUnit period) {
			this.field = field;
			this.period = period;
			this.min = (int) field.range().getMinimum();
			this.max = (int) field.range().getMaximum();
		}

		String label() {
			return name().toLowerCase(Locale.ROOT).replace('_', '-');
		}

		int get(ZonedDateTime time) {
			return time.get(this.field);
		}

		/**
		 * Moves to {@code goal}, or past the end of this period if {@code goal} is behind
		 * or not in it.
		 */
		ZonedDateTime advance(ZonedDateTime time, int goal) {
			int current = get(time);
			ValueRange range = time.range(this.field);
			if (current < goal && range.isValidIntValue(goal)) {
				return time.with(this.field, goal);
			}
			long amount = (current < goal) ? range.getMaximum() - current + 1
					: goal + range.getMaximum() - current + 1 - range.getMinimum();
			return time.plus(amount, this.field.getBaseUnit());
		}

		/** The start of the next period, such as the first day of next month. */
		ZonedDateTime nextPeriod(ZonedDateTime time) {
			ZonedDateTime next = time.plus(1, this.period);
			return next.with(this.field, next.range(this.field).getMinimum());
		}

		/**
		 * Sets the finer fields to their first value, coarsest first: midnight for a day.
		 */
		ZonedDateTime restart(ZonedDateTime time) {
			int coarsest = (this == DAY_OF_WEEK) ? HOUR.ordinal() : ordinal() - 1;
			for (int i = coarsest; i >= 0; i--) {
				ChronoField finer = values()[i].field;
				time = time.with(finer, time.range(finer).getMinimum());
			}
			return time;
		}

	}

	/**
	 * One field of the expression: the first matching time at or after a time, or
	 * {@code null} for none.
	 */
	private interface Field {

		@Nullable ZonedDateTime nextOrSame(ZonedDateTime time);

	}

	/** Allowed values of a unit as bits: bit 5 set means value 5 matches. */
	private record Bits(Unit unit, long bits) implements Field {

		@Override
		public @Nullable ZonedDateTime nextOrSame(ZonedDateTime time) {
			if (firstFrom(this.unit.get(time)) == this.unit.get(time)) {
				return time;
			}
			for (int i = 0; i < MAX_ATTEMPTS; i++) {
				int current = this.unit.get(time);
				int goal = firstFrom(current);
				if (goal < 0) {
					time = this.unit.nextPeriod(time);
					goal = firstFrom(this.unit.get(time)); // not from the minimum: a gap
															// may have skipped it
					if (goal < 0) {
						time = this.unit.nextPeriod(time);
						goal = firstFrom(0);
					}
					current = this.unit.get(time);
				}
				if (current == goal) {
					return this.unit.restart(time);
				}
				time = this.unit.advance(time, goal);
			}
			return null;
		}

		/** The first allowed value from {@code value} on, or -1. */
		private int firstFrom(int value) {
			long from = (value < 64) ? this.bits & (-1L << value) : 0;
			return (from != 0) ? Long.numberOfTrailingZeros(from) : -1;
		}

	}

}
