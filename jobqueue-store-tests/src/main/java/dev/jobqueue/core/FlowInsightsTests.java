package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.QueueInsights.KeyQuery;
import dev.jobqueue.core.store.QueueInsights.KeyState;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.core.store.QueueInsights.TypeKeys;
import dev.jobqueue.core.store.QueueSnapshot.FlowState;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What flow control holds back, as the snapshot counts it per reason ({@link FlowState})
 * and as the key list shows it, after each kind of change: jobs throttled by a rate
 * window, keys at their limit, blocked keys, and each released (a window that moves on, a
 * job that ends, a retry, a cancel).
 */
public abstract class FlowInsightsTests extends KeyedJobsTests {

	/** A claim whose handlers begin at once, as a worker's do. */
	private List<ClaimedJob> claim(int limit, FlowControl flow) {
		Instant now = this.clock.instant();
		ClaimRequest request = new ClaimRequest("w1", limit, Set.of(), Map.of(TYPE, limit), Set.of(),
				now.plusSeconds(30), Map.of(), limit, Map.of(TYPE, flow));
		List<ClaimedJob> jobs = this.db.store().claim(request, now);
		jobs.forEach(
				(job) -> this.db.store().recordHandlerStart(job, now, now.plusSeconds(30), InstantSource.fixed(now)));
		return jobs;
	}

	private ClaimedJob claimOne(FlowControl flow, String key) {
		return claim(10, flow).stream().filter((job) -> key.equals(job.key())).findFirst().orElseThrow();
	}

	private void succeed(ClaimedJob job) {
		this.db.store().complete(List.of(Completion.succeeded(job, null)), "w1", this.clock.instant());
	}

	private void failForGood(ClaimedJob job) {
		this.db.store().complete(List.of(Completion.failed(job, "TEST:BROKEN", "no")), "w1", this.clock.instant());
	}

	private FlowState state(FlowControl flow) {
		SnapshotSettings settings = new SnapshotSettings(Duration.ofMinutes(15), 2, Duration.ofMinutes(3), 10,
				Map.of(TYPE, flow));
		Map<String, FlowState> states = this.db.insights().snapshot(this.clock.instant(), settings).flow();
		assertThat(states).containsOnlyKeys(TYPE);
		return states.get(TYPE);
	}

	private TypeKeys keys(FlowControl flow, int limit) {
		return this.db.insights().keys(new KeyQuery(TYPE, flow, this.clock.instant(), limit));
	}

	/** Held jobs as (blocked, key-limit, key-rate-limit, rate-limit). */
	private static List<Long> held(FlowState state) {
		return List.of(state.blocked(), state.keyLimit(), state.keyRateLimit(), state.rateLimit());
	}

	@Test
	void aSnapshotWithoutFlowControlsCountsNoHeldJobs() {
		enqueueMany("a", "A", 3);
		SnapshotSettings settings = new SnapshotSettings(Duration.ofMinutes(15), 2, Duration.ofMinutes(3), 10);
		assertThat(this.db.insights().snapshot(this.clock.instant(), settings).flow()).isEmpty();
		SnapshotSettings unlimited = settings.withFlowControls(Map.of(TYPE, FlowControl.NONE));
		assertThat(this.db.insights().snapshot(this.clock.instant(), unlimited).flow()).isEmpty();
	}

	@Test
	void aKeyAtItsConcurrencyHoldsItsDueJobsUntilItsRunningJobsEnd() {
		FlowControl flow = new FlowControl(null, null, 1, false, true);
		enqueueMany("a", "A", 3);
		enqueue("b1", "B");
		enqueueMany("none", null, 2);
		this.harness.queue.enqueue(JobRequest.of(TYPE, "later").key("A").delay(Duration.ofMinutes(5)));

		FlowState before = state(flow);
		assertThat(before.due()).isEqualTo(6);
		assertThat(held(before)).as("A may start one of its three").containsExactly(0L, 2L, 0L, 0L);

		ClaimedJob a1 = claimOne(flow, "A");
		FlowState atLimit = state(flow);
		assertThat(atLimit.due()).isEqualTo(2);
		assertThat(held(atLimit)).as("A runs one: both its due jobs wait").containsExactly(0L, 2L, 0L, 0L);

		succeed(a1);
		assertThat(held(state(flow))).as("released: one of A's two may start").containsExactly(0L, 1L, 0L, 0L);
		this.clock.advance(Duration.ofMinutes(5));
		assertThat(held(state(flow))).as("the later job is due now").containsExactly(0L, 2L, 0L, 0L);
	}

	@Test
	void anOrderedKeyIsHeldByItsRunningJobAndByARetryThatIsNotDueYet() {
		FlowControl flow = new FlowControl(null, null, 0, true, true);
		enqueueMany("a", "A", 3);
		enqueue("b1", "B");

		assertThat(held(state(flow))).as("A's first goes, the others follow it").containsExactly(0L, 2L, 0L, 0L);
		ClaimedJob a1 = claimOne(flow, "A");
		assertThat(held(state(flow))).containsExactly(0L, 2L, 0L, 0L);

		this.db.store()
			.complete(List.of(Completion.retry(a1, "TEST:FLAKY", "again", this.clock.instant().plusSeconds(60))), "w1",
					this.clock.instant());
		FlowState backingOff = state(flow);
		assertThat(backingOff.due()).isEqualTo(2);
		assertThat(held(backingOff)).as("a2 and a3 wait for a1's retry").containsExactly(0L, 2L, 0L, 0L);

		this.clock.advance(Duration.ofSeconds(60));
		assertThat(held(state(flow))).as("a1 is due again and goes first").containsExactly(0L, 2L, 0L, 0L);
		assertThat(state(flow).due()).isEqualTo(3);
	}

	@Test
	void aFailedJobBlocksItsOrderedKeyUntilItIsRetriedOrCancelled() {
		FlowControl flow = new FlowControl(null, null, 0, true, true);
		long a1 = enqueue("a1", "A");
		enqueue("a2", "A");
		enqueue("a3", "A");
		long c1 = enqueue("c1", "C");
		enqueue("b1", "B");

		List<ClaimedJob> first = claim(10, flow);
		assertThat(first).extracting(ClaimedJob::key).containsExactlyInAnyOrder("A", "B", "C");
		first.stream().filter((job) -> !"B".equals(job.key())).forEach(this::failForGood);
		FlowState blocked = state(flow);
		assertThat(held(blocked)).containsExactly(2L, 0L, 0L, 0L);
		assertThat(blocked.blockedKeys()).as("C is blocked with nothing behind it").isEqualTo(2);

		TypeKeys keys = keys(flow, 10);
		assertThat(keys.blockedKeys()).isEqualTo(2);
		assertThat(keys.blocked()).extracting(KeyState::key).containsExactly("A", "C");
		assertThat(keys.blocked().get(0)).isEqualTo(new KeyState("A", 2, 2, 0, 1, a1, true));
		assertThat(keys.blocked().get(1).failedJobId()).isEqualTo(c1);

		assertThat(this.db.admin().retry(a1, this.clock.instant())).isTrue();
		FlowState retried = state(flow);
		assertThat(held(retried)).as("A is released; a1 goes first again").containsExactly(0L, 2L, 0L, 0L);
		assertThat(retried.blockedKeys()).isEqualTo(1);

		ClaimedJob again = claimOne(flow, "A");
		failForGood(again);
		assertThat(held(state(flow))).containsExactly(2L, 0L, 0L, 0L);
		assertThat(this.db.admin().cancel(a1, this.clock.instant())).isFalse();
		assertThat(this.db.admin().retry(c1, this.clock.instant())).isTrue();
		assertThat(this.db.admin().cancel(c1, this.clock.instant())).isTrue();
		assertThat(state(flow).blockedKeys()).as("cancelled, C holds nothing").isEqualTo(1);

		FlowControl nonBlocking = new FlowControl(null, null, 0, true, false);
		FlowState notBlocking = state(nonBlocking);
		assertThat(notBlocking.blockedKeys()).isZero();
		assertThat(held(notBlocking)).as("without blockOnFailure a2 goes").containsExactly(0L, 1L, 0L, 0L);
	}

	@Test
	void aFullRateWindowHoldsWhatItsPermitsDoNotCoverUntilTheWindowMovesOn() {
		FlowControl flow = new FlowControl(RateLimit.parse("2/1s"), null, 0, false, true);
		enqueueMany("none", null, 5);
		enqueueMany("a", "A", 2);

		FlowState before = state(flow);
		assertThat(before.due()).isEqualTo(7);
		assertThat(before.windowStarts()).isZero();
		assertThat(held(before)).as("two may start now").containsExactly(0L, 0L, 0L, 5L);

		assertThat(claim(10, flow)).hasSize(2);
		FlowState full = state(flow);
		assertThat(full.windowStarts()).isEqualTo(2);
		assertThat(held(full)).as("the window is full: every due job waits").containsExactly(0L, 0L, 0L, 5L);

		this.clock.advance(Duration.ofMillis(999));
		assertThat(state(flow).rateLimit()).isEqualTo(5);
		this.clock.advance(Duration.ofMillis(1));
		FlowState movedOn = state(flow);
		assertThat(movedOn.windowStarts()).isZero();
		assertThat(held(movedOn)).containsExactly(0L, 0L, 0L, 3L);
	}

	@Test
	void aKeysFullRateWindowHoldsThatKeyAlone() {
		FlowControl flow = new FlowControl(null, RateLimit.parse("1/1m"), 0, false, true);
		enqueueMany("a", "A", 3);
		enqueue("b1", "B");
		enqueue("none", null);

		assertThat(held(state(flow))).containsExactly(0L, 0L, 2L, 0L);
		claim(10, flow).forEach(this::succeed);
		FlowState full = state(flow);
		assertThat(full.due()).isEqualTo(2);
		assertThat(held(full)).as("A started one this minute").containsExactly(0L, 0L, 2L, 0L);

		this.clock.advance(Duration.ofMinutes(1));
		assertThat(held(state(flow))).containsExactly(0L, 0L, 1L, 0L);
	}

	@Test
	void eachDueJobCountsOnceUnderTheFirstLimitThatHoldsIt() {
		FlowControl flow = new FlowControl(RateLimit.parse("1/1s"), null, 1, false, true);
		enqueueMany("a", "A", 3);
		enqueueMany("b", "B", 3);
		enqueue("none", null);

		FlowState state = state(flow);
		assertThat(state.due()).isEqualTo(7);
		// A and B each let one go (4 held by their keys), and of those two and the job
		// without a key, the type's window lets one go.
		assertThat(held(state)).containsExactly(0L, 4L, 0L, 2L);
		assertThat(state.throttledTotal()).isEqualTo(6);
	}

	@Test
	void theKeyListShowsTheBusiestKeysByBacklogWithTheirRunningAndFailedJobs() {
		FlowControl flow = new FlowControl(null, null, 2, false, true);
		enqueueMany("a", "A", 2);
		enqueueMany("b", "B", 5);
		enqueueMany("c", "C", 3);
		enqueue("d1", "D");
		enqueue("none", null);
		ClaimedJob d1 = claimOne(flow, "D");
		failForGood(d1);
		claim(10, flow);

		TypeKeys keys = keys(flow, 2);
		assertThat(keys.keys()).isEqualTo(4);
		assertThat(keys.busiest()).extracting(KeyState::key).containsExactly("B", "C");
		assertThat(keys.busiest().get(0)).isEqualTo(new KeyState("B", 3, 3, 2, 0, null, false));
		assertThat(keys.blocked()).as("not ordered: a failed job blocks nothing").isEmpty();
		assertThat(keys(flow, 10).busiest()).extracting(KeyState::key).containsExactly("B", "C", "A", "D");
		assertThat(keys(flow, 10).busiest().get(3)).isEqualTo(new KeyState("D", 0, 0, 0, 1, d1.id(), false));
		assertThat(keys(FlowControl.NONE, 10).busiest()).hasSize(4);
	}

}
