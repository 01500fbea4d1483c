package dev.jobqueue.jdbc;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.core.store.QueueSnapshot.FlowState;
import dev.jobqueue.jdbc.FlowClaims.Candidate;
import dev.jobqueue.jdbc.FlowClaims.KeyVisit;
import dev.jobqueue.jdbc.FlowClaims.Starts;
import dev.jobqueue.jdbc.FlowInsights.KeyCounts;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counts of held jobs agree with the claim: for any state of a key, the due jobs they
 * leave unheld are exactly those {@link FlowClaims#allowed} lets a claim start.
 */
class FlowHeldCountsTests {

	private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	private static final List<FlowControl> FLOWS = List.of(new FlowControl(null, null, 1, false, true),
			new FlowControl(null, null, 3, false, true), new FlowControl(null, null, 0, true, true),
			new FlowControl(null, null, 0, true, false), new FlowControl(null, RateLimit.parse("2/1m"), 0, false, true),
			new FlowControl(null, RateLimit.parse("2/1m"), 2, false, true),
			new FlowControl(null, RateLimit.parse("1/1m"), 0, true, true));

	@Test
	void whatTheCountsLeaveUnheldIsWhatTheClaimAllowsForEveryStateOfAKey() {
		Random random = new Random(25);
		for (int round = 0; round < 5_000; round++) {
			FlowControl flow = FLOWS.get(random.nextInt(FLOWS.size()));
			int pending = random.nextInt(6);
			List<Candidate> jobs = new ArrayList<>();
			for (int i = 1; i <= pending; i++) {
				Instant runAt = random.nextBoolean() ? NOW.minusSeconds(i) : NOW.plusSeconds(i);
				jobs.add(new Candidate(i, "charge", "k", 0, runAt));
			}
			int running = random.nextInt(3);
			boolean failed = random.nextInt(4) == 0;
			int starts = random.nextInt(3);

			List<Candidate> due = jobs.stream().filter((job) -> !job.runAt().isAfter(NOW)).toList();
			Long firstDueId = due.isEmpty() ? null : due.get(0).id();
			KeyCounts counts = new KeyCounts("k", pending, due.size(), pending > 0 ? 1 : 0, firstDueId).with(running,
					failed ? 1 : 0, failed ? 99L : null, starts);
			FlowState state = FlowInsights.held(flow, List.of(counts), due.size(), 0, 0, counts.blocked(flow) ? 1 : 0);

			// The claim reads an ordered key's first pending job, due or not; another
			// key's due jobs.
			List<Candidate> read = flow.ordered() ? jobs.subList(0, Math.min(1, jobs.size())) : due;
			KeyVisit visit = new KeyVisit("k", running, failed, null, new Starts(starts, NOW.minusSeconds(1)), read);
			int claimable = FlowClaims.allowed(flow, visit, NOW).size();
			if (flow.ordered() && flow.blockOnFailure() && failed) {
				assertThat(state.blocked()).isEqualTo(due.size());
				claimable = 0;
			}
			assertThat(due.size() - state.throttledTotal())
				.as("%s with %d pending (%d due), %d running, failed %s, %d starts", flow, pending, due.size(), running,
						failed, starts)
				.isEqualTo(claimable);
		}
	}

	@Test
	void theTypesWindowHoldsWhatTheKeysLetGoAndTheJobsWithoutAKeyBeyondItsPermits() {
		FlowControl flow = new FlowControl(RateLimit.parse("3/1s"), null, 1, false, true);
		KeyCounts busy = new KeyCounts("a", 4, 4, 1, 1L);
		KeyCounts running = new KeyCounts("b", 2, 2, 5, 5L).with(1, 0, null, 0);
		FlowState state = FlowInsights.held(flow, List.of(busy, running), 8, 2, 1, 0);
		// a lets 1 go (3 held by key-limit), b none (2 held); of 1 + 2 without a key, the
		// window's 2 permits left let 2 go.
		assertThat(state.keyLimit()).isEqualTo(5);
		assertThat(state.rateLimit()).isEqualTo(1);
		assertThat(state.throttledTotal()).isEqualTo(6);
	}

}
