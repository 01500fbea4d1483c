package dev.jobqueue.core.worker;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
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

	private static JobRun run(long id, int priority) {
		ClaimedJob job = new ClaimedJob(id, "t", "{}", priority, 1, 1, 3, 0, NOW, NOW, null);
		return new JobRun(job, HandlerDefinition.of("t", (payload, context) -> null), NOW, null, "w",
				Clock.fixed(NOW, ZoneOffset.UTC), Ticker.SYSTEM,
				new WorkerSettings("w", 2, java.time.Duration.ofMillis(50), java.time.Duration.ofSeconds(30),
						java.time.Duration.ofSeconds(5), 10));
	}

}
