package dev.jobqueue;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.springframework.scheduling.support.CronExpression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link Cron} reads cron as Spring's {@link CronExpression} does: {@code next} gives the
 * same times for varied expressions from seeded-random start times in zones with daylight
 * saving, half of them close to an offset change (a few hundred starts per expression,
 * each followed for a few steps), and both reject the same invalid input.
 */
class CronAgreementTests {

	static final List<String> EXPRESSIONS = List.of("* * * * * *", "*/7 * * * * *", "0 * * * * *", "0 */5 * * * *",
			"0 0 * * * *", "0 0 */2 * * *", "0 0 */6 * * *", "0 0 0 * * *", "0 30 2 * * *", "0 0 2 * * *",
			"0 15 2 * * *", "0 15,45 1-3 * * *", "30 0/20 1,2,3 * * *", "0 */10 1-2 * * *", "0 30 1/2 * * *",
			"59 59 23 * * *", "0 0/30 8-10 * * *", "0 0 6,19 * * *", "10-20/3 5 4 * * *", "0 0 0 1 * *",
			"0 0 12 31 * *", "0 0 0 29 2 *", "0 0 0 */2 * *", "0 0 0 25 12 ?", "15 10 2-3 * MAR-OCT *",
			"0 0 0 1 jan,jul *", "0 0 9-17 * * MON-FRI", "0 0 0 * * SUN", "0 0 0 * * 0", "0 45 2 * * 7",
			"0 0 1 * * SAT-SUN", "0 0 0 13 * FRI", "0 0 2 ? * 5#2", "0 0 0 ? * MON#1", "0 0 0 ? * 3#5", "0 30 2 * * 5L",
			"0 0 0 * * thuL", "0 0 10 L * *", "0 0 0 L-3 * *", "0 0 2 LW * *", "0 0 0 1W * *", "0 0 0 15W * *",
			"0 0 0 31W * *", "0 0 8 1,15,L * *", "0 0 0 ? * 1#1,5L", "@yearly", "@monthly", "@weekly", "@daily",
			"@hourly");

	/**
	 * Gaps and repeats at 02:00 and 03:00, of half an hour on Lord Howe, at midnight in
	 * Santiago; and none.
	 */
	static final List<ZoneId> ZONES = List.of(ZoneId.of("Europe/Berlin"), ZoneId.of("America/New_York"),
			ZoneId.of("Australia/Lord_Howe"), ZoneId.of("America/Santiago"), ZoneOffset.UTC);

	static final int STARTS = 250;

	static final int STEPS = 4;

	@Test
	void nextAgreesWithSpringFromRandomStartsAcrossDaylightSavingChanges() {
		Random random = new Random(20260301);
		List<String> disagreements = new ArrayList<>();
		int compared = 0;
		for (String expression : EXPRESSIONS) {
			Cron ours = Cron.parse(expression);
			CronExpression spring = CronExpression.parse(expression);
			for (int i = 0; i < STARTS; i++) {
				ZonedDateTime time = start(random, ZONES.get(random.nextInt(ZONES.size())));
				for (int step = 0; step < STEPS && time != null; step++) {
					ZonedDateTime expected = spring.next(time);
					ZonedDateTime actual = ours.next(time);
					compared++;
					if (!Objects.equals(actual, expected) && disagreements.size() < 20) {
						disagreements
							.add("'" + expression + "' after " + time + ": Spring " + expected + ", ours " + actual);
					}
					time = expected;
				}
			}
		}
		assertThat(disagreements).as("disagreements in %d comparisons", compared).isEmpty();
		assertThat(compared).isGreaterThan(EXPRESSIONS.size() * STARTS * 3);
	}

	@Test
	void rejectsWhatSpringRejects() {
		List<String> invalid = List.of("", "0 0 * *", "0 0 0 * * * *", "@fortnightly", "60 * * * * *", "* 60 * * * *",
				"* * 24 * * *", "* * * 0 * *", "* * * 32 * *", "* * * * 0 *", "* * * * 13 *", "* * * * * 8",
				"*/0 * * * * *", "0 0 10-5 * * *", "0 0 -1 * * *", "0 0 1- * * *", "0 0 0 * FOO *", "0 0 0 * * MONDAY",
				"? * * * * *", "0 0 0 * ? *", "0 0 0 1,,2 * *", "a b c d e f", "0 0 0 LX * *", "0 0 0 W * *",
				"0 0 0 WL * *", "0 0 0 L-0 * *", "0 0 0 32W * *", "0 0 0 ? * L", "0 0 0 ? * #2", "0 0 0 ? * 5#",
				"0 0 0 ? * 5#0", "0 0 0 ? * 8L", "0 0 0 ? * 1-5L");
		for (String expression : invalid) {
			assertThatIllegalArgumentException().as(expression).isThrownBy(() -> CronExpression.parse(expression));
			assertThatIllegalArgumentException().as(expression).isThrownBy(() -> Cron.parse(expression));
		}
	}

	/**
	 * Half uniform over 2000-2039, half shortly before or after one of the zone's offset
	 * changes (within 3 hours before it or 36 hours around it); many on a whole second,
	 * minute or hour.
	 */
	static ZonedDateTime start(Random random, ZoneId zone) {
		Instant instant = Instant.parse("2000-01-01T00:00:00Z")
			.plusSeconds((long) (random.nextDouble() * 40 * 365 * 86400));
		if (random.nextBoolean()) {
			ZoneOffsetTransition change = zone.getRules().nextTransition(instant);
			if (change != null) {
				int seconds = random.nextBoolean() ? random.nextInt(4 * 3600) - 3 * 3600
						: random.nextInt(48 * 3600) - 36 * 3600;
				instant = change.getInstant().plusSeconds(seconds);
			}
		}
		ZonedDateTime time = instant.plusNanos(random.nextInt(1_000_000_000)).atZone(zone);
		return switch (random.nextInt(4)) {
			case 0 -> time.truncatedTo(ChronoUnit.SECONDS);
			case 1 -> time.truncatedTo(ChronoUnit.MINUTES);
			case 2 -> time.truncatedTo(ChronoUnit.HOURS);
			default -> time;
		};
	}

}
