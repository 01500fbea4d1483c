package dev.jobqueue.core.worker;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClaimPaceTests {

	private static final long MILLIS = TimeUnit.MILLISECONDS.toNanos(1);

	private long now = 1_000 * MILLIS;

	@Test
	void aBoundLeftToItsDefaultGrowsToAQuarterSecondOfWorkUpToTheMaximum() {
		ClaimPace pace = ClaimPace.of(settings(8));
		assertThat(pace.ahead()).as("the default, 16 per slot").isEqualTo(128);
		// 400 jobs every 100 ms: 4,000 a second, a quarter second of which is 1,000.
		claimEvery(pace, 400, 100, 6);
		assertThat(pace.ahead()).isEqualTo(WorkerSettings.MAX_CLAIM_AHEAD);
		ClaimPace slower = ClaimPace.of(settings(8));
		// 100 jobs every 100 ms: 1,000 a second, 250 held.
		claimEvery(slower, 100, 100, 6);
		assertThat(slower.ahead()).isEqualTo(250);
	}

	@Test
	void longJobsKeepTheDefault() {
		ClaimPace pace = ClaimPace.of(settings(8));
		// 8 jobs a second: two of them in a quarter second.
		claimEvery(pace, 8, 1_000, 5);
		assertThat(pace.ahead()).isEqualTo(128);
	}

	@Test
	void afterAPauseTheBoundFallsBackAtTheNextClaim() {
		ClaimPace pace = ClaimPace.of(settings(8));
		claimEvery(pace, 400, 100, 6);
		assertThat(pace.ahead()).isEqualTo(WorkerSettings.MAX_CLAIM_AHEAD);
		this.now += 60_000 * MILLIS;
		pace.claimed(10, this.now);
		assertThat(pace.ahead()).isEqualTo(128);
	}

	@Test
	void aBoundThatIsSetStaysAsSet() {
		ClaimPace pace = ClaimPace.of(settings(8).withClaimAhead(200));
		claimEvery(pace, 400, 100, 10);
		assertThat(pace.ahead()).isEqualTo(200);
		ClaimPace off = ClaimPace.of(settings(8).withClaimAhead(0));
		claimEvery(off, 8, 100, 10);
		assertThat(off.ahead()).isZero();
	}

	private void claimEvery(ClaimPace pace, int jobs, long everyMillis, int times) {
		for (int i = 0; i < times; i++) {
			this.now += everyMillis * MILLIS;
			pace.claimed(jobs, this.now);
		}
	}

	private static WorkerSettings settings(int concurrency) {
		return new WorkerSettings("w", concurrency, Duration.ofSeconds(1), Duration.ofSeconds(30),
				Duration.ofSeconds(5), 10, Duration.ofSeconds(10), WorkerSettings.DEFAULT_MAX_RESULT_BYTES);
	}

}
