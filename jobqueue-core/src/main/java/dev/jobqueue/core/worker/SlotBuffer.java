package dev.jobqueue.core.worker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import dev.jobqueue.core.store.ClaimedJob;

/**
 * A worker's slots and its claim-ahead buffer: how many runs are executing (handed to the
 * executor, handler not returned) and which claimed jobs wait for a slot, highest
 * priority first (then due time, id: the claim order). It only counts and orders; the
 * worker dispatches. One lock guards both, since a slot passes from a run that ends to
 * the next waiting job without being free in between.
 */
final class SlotBuffer {

	static final Comparator<JobRun> WAITING_ORDER = Comparator.comparing((JobRun run) -> run.job,
			ClaimedJob.CLAIM_ORDER);

	private final int concurrency;

	/** Whether waiting jobs may start: the worker claims and is not stopped. */
	private final BooleanSupplier open;

	private final Object lock = new Object();

	/** Jobs claimed ahead, waiting for a slot; guarded by {@link #lock}. */
	private final PriorityQueue<JobRun> waiting = new PriorityQueue<>(WAITING_ORDER);

	/** Runs that hold a slot; guarded by {@link #lock}. */
	private int executing;

	SlotBuffer(int concurrency, BooleanSupplier open) {
		this.concurrency = concurrency;
		this.open = open;
	}

	/** Jobs held and not done: executing or waiting for a slot. */
	int held() {
		synchronized (this.lock) {
			return this.executing + this.waiting.size();
		}
	}

	int waitingCount() {
		synchronized (this.lock) {
			return this.waiting.size();
		}
	}

	/** Slots in which a job claimed now would start at once: free, and not promised. */
	int freeNow() {
		synchronized (this.lock) {
			return this.concurrency - this.executing - this.waiting.size();
		}
	}

	/** Puts a claimed job in the buffer, to wait for a slot. */
	void addWaiting(JobRun run) {
		synchronized (this.lock) {
			this.waiting.add(run);
		}
	}

	/** Takes a slot for a job that starts at once, outside the buffer. */
	void takeSlot() {
		synchronized (this.lock) {
			this.executing++;
		}
	}

	/**
	 * The highest waiting job, its slot taken, when a slot is free and the buffer is
	 * open; else {@code null}.
	 */
	JobRun startNext() {
		synchronized (this.lock) {
			if (!this.open.getAsBoolean() || this.executing >= this.concurrency || this.waiting.isEmpty()) {
				return null;
			}
			this.executing++;
			return this.waiting.poll();
		}
	}

	/**
	 * A run ended: its slot passes to the highest waiting job (returned, to run on the
	 * caller's thread) when {@code pass} and the buffer is open, else it is freed.
	 */
	JobRun endRun(boolean pass) {
		synchronized (this.lock) {
			if (pass && this.open.getAsBoolean() && this.executing <= this.concurrency && !this.waiting.isEmpty()) {
				return this.waiting.poll();
			}
			this.executing--;
			return null;
		}
	}

	/** Takes out of the buffer the waiting jobs that match. */
	List<JobRun> removeWaiting(Predicate<JobRun> filter) {
		List<JobRun> removed = new ArrayList<>();
		synchronized (this.lock) {
			for (JobRun run : this.waiting) {
				if (filter.test(run)) {
					removed.add(run);
				}
			}
			this.waiting.removeAll(removed);
		}
		return removed;
	}

	/** Empties the buffer (at shutdown), returning what waited. */
	List<JobRun> drainWaiting() {
		synchronized (this.lock) {
			List<JobRun> all = new ArrayList<>(this.waiting);
			this.waiting.clear();
			return all;
		}
	}

}
