package dev.jobqueue.core;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A rate limit as users write it ({@code "100/1s"}): the forms it is read in, how it is
 * written back, and what each malformed one is told, with a valid example.
 */
class RateLimitTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			100/1s     | 100  | PT1S     | 100/1s
			10/1m      | 10   | PT1M     | 10/1m
			100/s      | 100  | PT1S     | 100/1s
			3/PT30S    | 3    | PT30S    | 3/30s
			500/250ms  | 500  | PT0.25S  | 500/250ms
			5000/1d    | 5000 | PT24H    | 5000/1d
			1/1h       | 1    | PT1H     | 1/1h
			7/90m      | 7    | PT1H30M  | 7/90m
			20/1S      | 20   | PT1S     | 20/1s
			2/pt1m     | 2    | PT1M     | 2/1m
			1/366d     | 1    | PT8784H  | 1/366d
			""")
	void readsTheSimpleAndTheIsoForms(String text, int permits, Duration window, String written) {
		RateLimit limit = RateLimit.parse(text);
		assertThat(limit).isEqualTo(new RateLimit(permits, window));
		assertThat(limit).hasToString(written);
		assertThat(RateLimit.parse(limit.toString())).isEqualTo(limit);
	}

	@Test
	void spacesAroundThePartsAreAllowedAndTheLargestPermitsAreAnInt() {
		assertThat(RateLimit.parse(" 100 / 1s ")).isEqualTo(new RateLimit(100, Duration.ofSeconds(1)));
		assertThat(RateLimit.parse("2147483647/1s").permits()).isEqualTo(Integer.MAX_VALUE);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '`',
			textBlock = """
					100/          | "100/" is not a rate limit: it has no window after the '/'.
					-1            | "-1" is not a rate limit: it has no window.
					100           | "100" is not a rate limit: it has no window.
					/1s           | "/1s" is not a rate limit: the permits before the '/' must be a whole number of 1 or more.
					-1/1s         | "-1/1s" is not a rate limit: the permits before the '/' must be a whole number of 1 or more.
					1.5/1s        | "1.5/1s" is not a rate limit: the permits before the '/' must be a whole number of 1 or more.
					0/1s          | "0/1s" allows no starts: a rate limit allows at least 1 start per window.
					3000000000/1s | "3000000000/1s" allows more starts per window than a rate limit counts (2147483647 at most).
					""")
	void aMalformedLimitSaysWhatIsWrongThenHowToWriteIt(String text, String problem) {
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse(text))
			.withMessage(problem + " Write it as permits/window, for example \"100/1s\" (100 starts in any second), "
					+ "\"10/1m\", \"5000/1d\" or \"3/PT30S\".");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '`',
			textBlock = """
					100/1w                  | "100/1w" has the window "1w", which is not a duration.
					100/fast                | "100/fast" has the window "fast", which is not a duration.
					100/1 s                 | "100/1 s" has the window "1 s", which is not a duration.
					100/0s                  | "100/0s" has the window "0s": a window must be positive.
					100/PT-1S               | "100/PT-1S" has the window "PT-1S": a window must be positive.
					1/367d                  | "1/367d" has the window "367d", longer than the 366 days a rate limit counts at most.
					1/99999999999999999999d | "1/99999999999999999999d" has the window "99999999999999999999d", longer than the 366 days a rate limit counts at most.
					1/9999999999999999d     | "1/9999999999999999d" has the window "9999999999999999d", longer than the 366 days a rate limit counts at most.
					1/PT0.0005S             | "1/PT0.0005S" has the window "PT0.0005S", finer than the whole milliseconds a rate limit counts in.
					""")
	void aMalformedWindowSaysHowToWriteAWindow(String text, String problem) {
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse(text))
			.withMessage(problem + " Write the window in ms, s, m, h or d (a number before the unit, or the unit "
					+ "alone for one), or in ISO-8601 such as PT30S; for example " + RateLimit.EXAMPLE + ".");
	}

	@ParameterizedTest
	@NullAndEmptySource
	@ValueSource(strings = "  ")
	void anEmptyLimitIsNotOne(String text) {
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse(text))
			.withMessageStartingWith("A rate limit is empty. Write it as permits/window, for example \"100/1s\"");
	}

	@Test
	void theConstructorHoldsTheSameRules() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimit(0, Duration.ofSeconds(1)))
			.withMessageContaining("allows no starts");
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimit(1, Duration.ZERO))
			.withMessageContaining("a window must be positive");
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimit(1, Duration.ofNanos(1500)))
			.withMessageContaining("whole milliseconds");
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimit(1, Duration.ofDays(400)))
			.withMessageContaining("longer than the 366 days");
	}

}
