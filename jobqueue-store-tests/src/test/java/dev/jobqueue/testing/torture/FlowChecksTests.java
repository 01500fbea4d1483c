package dev.jobqueue.testing.torture;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.jobqueue.testing.torture.FlowChecks.Interval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The flow torture test's judgements must catch what they are there to catch: each is
 * shown a breach and a near miss.
 */
class FlowChecksTests {

	@Test
	void overlappingRunsCountTogetherAndRunsThatTouchDoNot() {
		assertThat(FlowChecks.maxConcurrent(List.of(new Interval(1, 0, 10), new Interval(2, 5, 15)))).isEqualTo(2);
		assertThat(FlowChecks.maxConcurrent(List.of(new Interval(1, 0, 10), new Interval(2, 10, 20)))).isEqualTo(1);
		assertThat(FlowChecks.maxConcurrent(List.of(new Interval(1, 0, 100), new Interval(2, 10, 20),
				new Interval(3, 20, 30), new Interval(4, 25, 26))))
			.isEqualTo(3);
		assertThat(FlowChecks.maxConcurrent(List.of())).isZero();
	}

	@Test
	void startsAWindowApartFallInDifferentWindows() {
		long[] starts = { 0, 999, 1_000, 1_999, 2_000 };
		assertThat(FlowChecks.maxInWindow(starts, 1_000)).isEqualTo(2);
		assertThat(FlowChecks.maxInWindow(starts, 1_001)).isEqualTo(3);
		assertThat(FlowChecks.maxInWindow(new long[] { 2_000, 0, 1, 2, 999 }, 1_000)).isEqualTo(4);
		assertThat(FlowChecks.maxInWindow(new long[0], 1_000)).isZero();
		assertThatIllegalArgumentException().isThrownBy(() -> FlowChecks.maxInWindow(starts, 0));
	}

	@Test
	void aKeyThatWentInOrderOneAfterAnotherHasNoViolations() {
		List<Interval> runs = List.of(new Interval(3, 20, 30), new Interval(1, 0, 10), new Interval(2, 10, 20));
		assertThat(FlowChecks.orderViolations("k", List.of(1L, 2L, 3L), runs, Set.of(1L, 2L, 3L))).isEmpty();
	}

	@Test
	void aJobRunAgainAfterItsKeyWasReleasedKeepsTheOrder() {
		// Job 2's first run was cut off and held the key until 40; its second run ran to
		// its end.
		List<Interval> runs = List.of(new Interval(1, 0, 10), new Interval(2, 10, 40), new Interval(2, 45, 50),
				new Interval(3, 50, 60));
		assertThat(FlowChecks.orderViolations("k", List.of(1L, 2L, 3L), runs, Set.of(1L, 2L, 3L))).isEmpty();
	}

	@Test
	void aLaterJobFirstIsAViolation() {
		List<Interval> runs = List.of(new Interval(2, 0, 10), new Interval(1, 10, 20));
		assertThat(FlowChecks.orderViolations("k", List.of(1L, 2L), runs, Set.of(1L, 2L))).singleElement()
			.asString()
			.contains("job 1 started at 10, after job 2");
	}

	@Test
	void aStartBeforeThePreviousRunLetTheKeyGoIsAViolation() {
		List<Interval> runs = List.of(new Interval(1, 0, 10), new Interval(2, 9, 20));
		assertThat(FlowChecks.orderViolations("k", List.of(1L, 2L), runs, Set.of(1L, 2L))).singleElement()
			.asString()
			.contains("job 2 started at 9, before job 1 let the key go at 10");
		// A cut-off run holds the key until the queue takes it back.
		List<Interval> afterKill = List.of(new Interval(1, 0, 1_500), new Interval(2, 1_000, 1_100),
				new Interval(1, 1_600, 1_700));
		assertThat(FlowChecks.orderViolations("k", List.of(1L, 2L), afterKill, Set.of(1L, 2L))).isNotEmpty();
	}

	@Test
	void aJobThatNeverEndedOrNeverRanIsAViolation() {
		List<Interval> runs = List.of(new Interval(1, 0, 10));
		assertThat(FlowChecks.orderViolations("k", List.of(1L, 2L), runs, Set.of(1L))).singleElement()
			.asString()
			.contains("job 2 never ran to its end");
	}

	@Test
	void anIntervalThatEndsBeforeItStartsIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Interval(1, 10, 9));
	}

}
