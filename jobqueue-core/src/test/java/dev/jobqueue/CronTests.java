package dev.jobqueue;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Each piece of cron syntax, with expectations checked by hand against a calendar. In
 * 2026 the 1st of March is a Sunday, the 1st of April a Wednesday, the 1st of May a
 * Friday and the 1st of August a Saturday.
 */
class CronTests {

	@Test
	void everySecondIsStrictlyAfterTheStart() {
		assertTimes("* * * * * *", "2026-03-01T10:00:00.5Z", "2026-03-01T10:00:01Z", "2026-03-01T10:00:02Z");
		assertTimes("* * * * * *", "2026-03-01T10:00:00Z", "2026-03-01T10:00:01Z");
	}

	@Test
	void numbersFixAField() {
		assertTimes("30 15 10 * * *", "2026-03-01T00:00Z", "2026-03-01T10:15:30Z", "2026-03-02T10:15:30Z");
	}

	@Test
	void rangesIncludeBothEnds() {
		assertTimes("0 0 9-11 * * *", "2026-03-01T10:30Z", "2026-03-01T11:00Z", "2026-03-02T09:00Z",
				"2026-03-02T10:00Z");
	}

	@Test
	void stepsCountFromTheStartOfTheirRange() {
		assertTimes("*/20 * * * * *", "2026-03-01T10:00:05Z", "2026-03-01T10:00:20Z", "2026-03-01T10:00:40Z",
				"2026-03-01T10:01:00Z");
		assertTimes("5/20 * * * * *", "2026-03-01T10:00:00Z", "2026-03-01T10:00:05Z", "2026-03-01T10:00:25Z",
				"2026-03-01T10:00:45Z", "2026-03-01T10:01:05Z");
		assertTimes("0 10-40/15 * * * *", "2026-03-01T10:00Z", "2026-03-01T10:10Z", "2026-03-01T10:25Z",
				"2026-03-01T10:40Z", "2026-03-01T11:10Z");
	}

	@Test
	void listsJoinNumbersRangesAndSteps() {
		assertTimes("0 0 6,19 * * *", "2026-03-01T07:00Z", "2026-03-01T19:00Z", "2026-03-02T06:00Z");
		assertTimes("0 5,10-12,*/30 * * * *", "2026-03-01T10:00Z", "2026-03-01T10:05Z", "2026-03-01T10:10Z",
				"2026-03-01T10:11Z", "2026-03-01T10:12Z", "2026-03-01T10:30Z", "2026-03-01T11:00Z");
	}

	@Test
	void daysOfMonthThatAMonthLacksAreSkipped() {
		assertTimes("0 0 0 31 * *", "2026-03-31T12:00Z", "2026-05-31T00:00Z", "2026-07-31T00:00Z");
		assertTimes("0 0 0 29 2 *", "2026-01-01T00:00Z", "2028-02-29T00:00Z");
	}

	@Test
	void aDateThatNeverComesHasNoNextTime() {
		assertThat(Cron.parse("0 0 0 30 2 *").next(ZonedDateTime.parse("2026-01-01T00:00Z"))).isNull();
		assertThat(Cron.parse("0 0 0 31 4 *").next(ZonedDateTime.parse("2026-01-01T00:00Z"))).isNull();
	}

	@Test
	void monthsByNumberOrNameInAnyCase() {
		assertTimes("0 0 0 1 jan,Jul *", "2026-03-01T00:00Z", "2026-07-01T00:00Z", "2027-01-01T00:00Z");
		assertTimes("0 0 12 1 MAR-MAY *", "2026-01-01T00:00Z", "2026-03-01T12:00Z", "2026-04-01T12:00Z",
				"2026-05-01T12:00Z", "2027-03-01T12:00Z");
		assertTimes("0 0 12 1 3-5 *", "2026-01-01T00:00Z", "2026-03-01T12:00Z", "2026-04-01T12:00Z");
	}

	@ParameterizedTest
	@ValueSource(strings = { "0 0 0 * * SUN", "0 0 0 * * sun", "0 0 0 * * 0", "0 0 0 * * 7" })
	void sundayIsSunOrZeroOrSeven(String expression) {
		assertTimes(expression, "2026-03-02T00:00Z", "2026-03-08T00:00Z", "2026-03-15T00:00Z");
	}

	@Test
	void daysOfWeekInRanges() {
		assertTimes("0 0 9 * * MON-FRI", "2026-03-06T10:00Z", "2026-03-09T09:00Z", "2026-03-10T09:00Z");
		// Sunday opening a range is the first day of the week, closing one the last
		assertTimes("0 0 0 * * SUN-TUE", "2026-03-02T00:00Z", "2026-03-03T00:00Z", "2026-03-08T00:00Z",
				"2026-03-09T00:00Z");
		assertTimes("0 0 0 * * FRI-SUN", "2026-03-02T00:00Z", "2026-03-06T00:00Z", "2026-03-07T00:00Z",
				"2026-03-08T00:00Z", "2026-03-13T00:00Z");
	}

	@Test
	void questionMarkStandsForAnyDay() {
		assertTimes("0 0 0 25 12 ?", "2026-03-01T00:00Z", "2026-12-25T00:00Z");
		assertTimes("0 0 0 ? * MON", "2026-03-01T00:00Z", "2026-03-02T00:00Z");
	}

	@Test
	void dayOfMonthAndDayOfWeekMustBothMatch() {
		assertTimes("0 0 0 13 * FRI", "2026-01-01T00:00Z", "2026-02-13T00:00Z", "2026-03-13T00:00Z",
				"2026-11-13T00:00Z");
	}

	@ParameterizedTest
	@CsvSource({ "@yearly, 2027-01-01T00:00Z", "@annually, 2027-01-01T00:00Z", "@monthly, 2026-04-01T00:00Z",
			"@weekly, 2026-03-08T00:00Z", "@daily, 2026-03-02T00:00Z", "@midnight, 2026-03-02T00:00Z",
			"@hourly, 2026-03-01T11:00Z", "@DAILY, 2026-03-02T00:00Z", "'  @Hourly ', 2026-03-01T11:00Z" })
	void macros(String macro, String expected) {
		assertTimes(macro, "2026-03-01T10:00Z", expected);
	}

	@Test
	void lastDayOfMonth() {
		assertTimes("0 0 0 L * *", "2026-02-10T00:00Z", "2026-02-28T00:00Z", "2026-03-31T00:00Z", "2026-04-30T00:00Z");
		assertTimes("0 0 0 L * *", "2028-02-01T00:00Z", "2028-02-29T00:00Z");
		assertTimes("0 0 12 L * *", "2026-02-28T06:00Z", "2026-02-28T12:00Z", "2026-03-31T12:00Z");
		// lower case and tabs, which Spring rejects, read the same
		assertTimes("0\t0 0 l * *", "2026-02-10T00:00Z", "2026-02-28T00:00Z");
	}

	@Test
	void nthToLastDayOfMonth() {
		assertTimes("0 0 0 L-3 * *", "2026-02-01T00:00Z", "2026-02-25T00:00Z", "2026-03-28T00:00Z",
				"2026-04-27T00:00Z");
	}

	@Test
	void lastWeekdayOfMonth() {
		assertTimes("0 0 0 LW * *", "2026-01-01T00:00Z", "2026-01-30T00:00Z", "2026-02-27T00:00Z", "2026-03-31T00:00Z",
				"2026-04-30T00:00Z", "2026-05-29T00:00Z");
	}

	@Test
	void weekdayNearestToADayOfMonth() {
		// the 15th of February and of March is a Sunday, of April a Wednesday, of August
		// a Saturday
		assertTimes("0 0 0 15W * *", "2026-02-01T00:00Z", "2026-02-16T00:00Z", "2026-03-16T00:00Z",
				"2026-04-15T00:00Z");
		assertTimes("0 0 0 15W * *", "2026-08-01T00:00Z", "2026-08-14T00:00Z");
		// 1W stays in its month: Saturday the 1st of August gives Monday the 3rd, not
		// Friday the 31st of July
		assertTimes("0 0 0 1W * *", "2026-07-15T00:00Z", "2026-08-03T00:00Z", "2026-09-01T00:00Z", "2026-10-01T00:00Z",
				"2026-11-02T00:00Z");
	}

	@ParameterizedTest
	@ValueSource(strings = { "0 0 0 * * 5L", "0 0 0 * * FRIL", "0 0 0 ? * friL" })
	void lastGivenDayOfWeekInMonth(String expression) {
		assertTimes(expression, "2026-03-01T00:00Z", "2026-03-27T00:00Z", "2026-04-24T00:00Z", "2026-05-29T00:00Z");
	}

	@Test
	void nthGivenDayOfWeekInMonth() {
		assertTimes("0 0 0 ? * MON#1", "2026-03-01T00:00Z", "2026-03-02T00:00Z", "2026-04-06T00:00Z",
				"2026-05-04T00:00Z");
		assertTimes("0 0 0 ? * 5#2", "2026-03-01T00:00Z", "2026-03-13T00:00Z", "2026-04-10T00:00Z",
				"2026-05-08T00:00Z");
		// a fifth Wednesday only in April and July
		assertTimes("0 0 0 ? * WED#5", "2026-03-01T00:00Z", "2026-04-29T00:00Z", "2026-07-29T00:00Z");
	}

	@Test
	void listsMixQuartzDaysWithPlainOnes() {
		assertTimes("0 0 8 1,15,L * *", "2026-03-15T09:00Z", "2026-03-31T08:00Z", "2026-04-01T08:00Z",
				"2026-04-15T08:00Z", "2026-04-30T08:00Z");
		assertTimes("0 0 0 ? * MON#1,FRIL", "2026-03-01T00:00Z", "2026-03-02T00:00Z", "2026-03-27T00:00Z",
				"2026-04-06T00:00Z", "2026-04-24T00:00Z");
	}

	@Test
	void aLocalTimeSkippedBySpringForwardDoesNotFireThatDay() {
		// Berlin: 2026-03-29 02:00 CET becomes 03:00 CEST
		assertTimes("0 30 2 * * *", "2026-03-28T12:00+01:00[Europe/Berlin]", "2026-03-30T02:30+02:00[Europe/Berlin]");
		assertTimes("0 0 * * * *", "2026-03-29T00:30+01:00[Europe/Berlin]", "2026-03-29T01:00+01:00[Europe/Berlin]",
				"2026-03-29T03:00+02:00[Europe/Berlin]", "2026-03-29T04:00+02:00[Europe/Berlin]");
		assertTimes("0 0 9 * * *", "2026-03-28T09:00+01:00[Europe/Berlin]", "2026-03-29T09:00+02:00[Europe/Berlin]");
		// Lord Howe moves half an hour: 2026-10-04 02:00 becomes 02:30, so 02:15 is
		// skipped and 02:45 is not
		assertTimes("0 15 2 * * *", "2026-10-03T12:00+10:30[Australia/Lord_Howe]",
				"2026-10-05T02:15+11:00[Australia/Lord_Howe]");
		assertTimes("0 45 2 * * *", "2026-10-03T12:00+10:30[Australia/Lord_Howe]",
				"2026-10-04T02:45+11:00[Australia/Lord_Howe]");
	}

	@Test
	void aLocalTimeRepeatedByFallBackFiresInBothOffsets() {
		// Berlin: 2026-10-25 03:00 CEST becomes 02:00 CET
		assertTimes("0 30 2 * * *", "2026-10-25T00:00+02:00[Europe/Berlin]", "2026-10-25T02:30+02:00[Europe/Berlin]",
				"2026-10-25T02:30+01:00[Europe/Berlin]", "2026-10-26T02:30+01:00[Europe/Berlin]");
		assertTimes("0 0 * * * *", "2026-10-25T01:30+02:00[Europe/Berlin]", "2026-10-25T02:00+02:00[Europe/Berlin]",
				"2026-10-25T02:00+01:00[Europe/Berlin]", "2026-10-25T03:00+01:00[Europe/Berlin]");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|',
			value = { "0 0 * *| found 4 fields where 6 are needed", "0 0 0 * * * *| found 7 fields where 6 are needed",
					"@fortnightly| unknown macro '@fortnightly', use one of @yearly",
					"60 * * * * *| second field '60': 60 is outside 0-59",
					"0 x * * * *| minute field 'x': 'X' is not a number",
					"+5 * * * * *| second field '+5': '+5' is not a number",
					"0 0 25 * * *| hour field '25': 25 is outside 0-23",
					"0 0 10-5 * * *| hour field '10-5': the range '10-5' ends before it starts",
					"*/0 * * * * *| second field '*/0': the step in '*/0' must be 1 or more",
					"0 0 0 32 * *| day-of-month field '32': 32 is outside 1-31",
					"0 0 0 1,,2 * *| day-of-month field '1,,2': '' is not a number",
					"0 0 0 L-31 * *| day-of-month field 'L-31': 31 is outside 1-30",
					"0 0 0 WL * *| day-of-month field 'WL': 'WL' is none of L, L-n, LW or nW",
					"0 0 0 * 13 *| month field '13': 13 is outside 1-12",
					"0 0 0 * Foo *| month field 'Foo': 'FOO' is not one of [JAN, FEB,",
					"0 0 0 * * 8| day-of-week field '8': 8 is outside 0-7",
					"0 0 0 * * MONDAY| day-of-week field 'MONDAY': 'DAY' is not one of [MON, TUE,",
					"0 0 0 ? * L| day-of-week field 'L': 'L' is neither dL nor d#n",
					"0 0 0 ? * MON#6| day-of-week field 'MON#6': 6 is outside 1-5" })
	void invalidExpressionsNameTheFieldAndTheProblem(String expression, String message) {
		assertThatIllegalArgumentException().isThrownBy(() -> Cron.parse(expression)).withMessageStartingWith(message);
	}

	@Test
	void scheduleKeepsItsOwnWordsAroundTheFieldMessage() {
		assertThatIllegalArgumentException().isThrownBy(() -> Schedule.cron("0 0 25 * * *"))
			.withMessageStartingWith("'0 0 25 * * *' is not a valid cron expression: hour field '25': 25 is outside "
					+ "0-23. Use Spring's six fields (second minute hour day-of-month month day-of-week)");
		assertThat(Schedule.cron("0 30 2 * * *", ZoneId.of("Europe/Berlin"))
			.nextAfter(Instant.parse("2026-03-28T12:00:00Z"))).isEqualTo(Instant.parse("2026-03-30T00:30:00Z"));
	}

	private static void assertTimes(String expression, String start, String... expected) {
		Cron cron = Cron.parse(expression);
		List<ZonedDateTime> times = new ArrayList<>();
		ZonedDateTime time = ZonedDateTime.parse(start);
		for (int i = 0; i < expected.length; i++) {
			time = cron.next(time);
			times.add(time);
		}
		assertThat(times).as(expression)
			.containsExactlyElementsOf(Stream.of(expected).map(ZonedDateTime::parse).toList());
	}

}
