package dev.jobqueue.core.worker;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ClaimedJob;

import static org.assertj.core.api.Assertions.assertThat;

class SlotBufferTests {

	private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	private final AtomicBoolean open = new AtomicBoolean(true);

	private final SlotBuffer slots = new SlotBuffer(2, this.open::get);

	@Test
	void waitingJobsStartHighestPriorityFirstIntoFreeSlotsOnly() {
		this.slots.addWaiting(run(1, 0));
		this.slots.addWaiting(run(2, 5));
		this.slots.addWaiting(run(3, 5));
		assertThat(this.slots.freeNow()).as("free slots are promised to the waiting jobs").isEqualTo(-1);

		assertThat(this.slots.startNext().job.id()).isEqualTo(2);
		assertThat(this.slots.startNext().job.id()).as("same priority: lower id").isEqualTo(3);
		assertThat(this.slots.startNext()).as("both slots taken").isNull();
		assertThat(this.slots.held()).isEqualTo(3);
		assertThat(this.slots.waitingCount()).isEqualTo(1);
	}

	@Test
	void anEndingRunPassesItsSlotToTheNextWaitingJobOrFreesIt() {
		this.slots.takeSlot();
		this.slots.addWaiting(run(1, 0));

		assertThat(this.slots.endRun(true).job.id()).as("the slot passes").isEqualTo(1);
		assertThat(this.slots.held()).isEqualTo(1);
		assertThat(this.slots.endRun(true)).as("nothing waits: the slot is freed").isNull();
		assertThat(this.slots.held()).isZero();
		assertThat(this.slots.freeNow()).isEqualTo(2);
	}

	@Test
	void aClosedBufferStartsNothingAndFreesEndingSlots() {
		this.slots.takeSlot();
		this.slots.addWaiting(run(1, 0));
		this.open.set(false);

		assertThat(this.slots.endRun(true)).isNull();
		assertThat(this.slots.startNext()).isNull();
		assertThat(this.slots.drainWaiting()).extracting((run) -> run.job.id()).containsExactly(1L);
		assertThat(this.slots.held()).isZero();
	}

	@Test
	void removesTheWaitingJobsThatMatch() {
		this.slots.addWaiting(run(1, 0));
		this.slots.addWaiting(run(2, 0));

		assertThat(this.slots.removeWaiting((run) -> run.job.id() == 2)).extracting((run) -> run.job.id())
			.containsExactly(2L);
		assertThat(this.slots.waitingCount()).isEqualTo(1);
	}

	@Test
	void aQuietKeysJobStartsAtTheNextFreeSlotNotBehindABusyKeysJobsClaimedBeforeIt() {
		SlotBuffer one = new SlotBuffer(1, this.open::get);
		for (long id = 1; id <= 50; id++) {
			one.addWaiting(run(id, 0, "t", "busy"));
		}
		assertThat(one.startNext().job.id()).isEqualTo(1);
		one.addWaiting(run(100, 0, "t", "quiet"));

		assertThat(one.endRun(true).job.id()).as("the quiet key's turn comes before the busy key's second")
			.isEqualTo(100);
		assertThat(one.endRun(true).job.id()).isEqualTo(2);
	}

	@Test
	void keysTakeTurnsWithinAPriorityAndAHigherPriorityStillGoesFirst() {
		SlotBuffer one = new SlotBuffer(1, this.open::get);
		one.addWaiting(run(1, 0, "t", "a"));
		one.addWaiting(run(2, 0, "t", "a"));
		one.addWaiting(run(3, 0, "t", "a"));
		one.addWaiting(run(4, 0, "t", "b"));
		one.addWaiting(run(5, 0, "t", "b"));
		one.addWaiting(run(6, 5, "t", "a"));
		one.addWaiting(run(7, 0, "other", "a"));

		List<Long> order = new ArrayList<>();
		order.add(one.startNext().job.id());
		for (JobRun next; (next = one.endRun(true)) != null;) {
			order.add(next.job.id());
		}
		assertThat(order)
			.as("priority first; then key a of t, key b of t and key a of other in turn; "
					+ "within a key, claim order")
			.containsExactly(6L, 1L, 4L, 7L, 2L, 5L, 3L);
	}

	@Test
	void jobsWithoutAKeyShareOneLaneAndKeepTheClaimOrder() {
		SlotBuffer one = new SlotBuffer(1, this.open::get);
		one.addWaiting(run(1, 0, "t", null));
		one.addWaiting(run(2, 0, "u", null));
		one.addWaiting(run(3, 0, "t", null));
		one.addWaiting(run(4, 0, "t", "k"));

		List<Long> order = new ArrayList<>();
		order.add(one.startNext().job.id());
		for (JobRun next; (next = one.endRun(true)) != null;) {
			order.add(next.job.id());
		}
		assertThat(order).as("the jobs without a key take their turns as one more key").containsExactly(1L, 4L, 2L, 3L);
	}

	@Test
	void aKeyWhoseJobsLeftTheBufferComesBackAtTheCurrentTurn() {
		SlotBuffer one = new SlotBuffer(1, this.open::get);
		for (long id = 1; id <= 5; id++) {
			one.addWaiting(run(id, 0, "t", "busy"));
		}
		one.addWaiting(run(10, 0, "t", "gone"));
		one.addWaiting(run(11, 0, "t", "gone"));
		assertThat(one.removeWaiting((run) -> "gone".equals(run.job.key()))).hasSize(2);
		assertThat(one.startNext().job.id()).isEqualTo(1);
		assertThat(one.endRun(true).job.id()).isEqualTo(2);
		one.addWaiting(run(12, 0, "t", "gone"));

		assertThat(one.endRun(true).job.id()).as("its removed jobs' turns are not held against it").isEqualTo(12);
		assertThat(one.drainWaiting()).extracting((run) -> run.job.id()).containsExactlyInAnyOrder(3L, 4L, 5L);
		one.addWaiting(run(13, 0, "t", "busy"));
		assertThat(one.waitingCount()).isEqualTo(1);
	}

	private static JobRun run(long id, int priority) {
		return run(id, priority, "t", null);
	}

	private static JobRun run(long id, int priority, String type, String key) {
		ClaimedJob job = new ClaimedJob(id, type, "{}", priority, 1, 1, 3, 0, NOW, NOW, null, key);
		return new JobRun(job, HandlerDefinition.of("t", (payload, context) -> null), NOW, null, "w",
				Clock.fixed(NOW, ZoneOffset.UTC), Ticker.SYSTEM,
				new WorkerSettings("w", 2, java.time.Duration.ofMillis(50), java.time.Duration.ofSeconds(30),
						java.time.Duration.ofSeconds(5), 10));
	}

}
