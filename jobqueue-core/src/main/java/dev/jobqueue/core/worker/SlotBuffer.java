package dev.jobqueue.core.worker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import dev.jobqueue.core.store.ClaimedJob;

/**
 * A worker's slots and its claim-ahead buffer: how many runs are executing (handed to the
 * executor, handler not returned) and which claimed jobs wait for a slot. It only counts
 * and orders; the worker dispatches. One lock guards both, since a slot passes from a run
 * that ends to the next waiting job without being free in between.
 * <p>
 * Waiting jobs start highest priority first and, within a priority, keys take turns as
 * they do in the claim: each key of a type is a lane, and jobs without a key share one
 * more lane. A job gets its turn as it comes in: the turn after its lane's previous job,
 * and never before the turn of the latest job started. So a job of a key with nothing
 * waiting starts after at most one job of each other lane, not behind the hundreds of
 * jobs one busy key has claimed ahead; within a lane, jobs keep the claim order.
 */
final class SlotBuffer {

	/** Highest priority first, then earliest turn, then the claim order. */
	private static final Comparator<Waiting> WAITING_ORDER = Comparator
		.comparingInt((Waiting waiting) -> waiting.run().job.priority())
		.reversed()
		.thenComparingLong(Waiting::turn)
		.thenComparing((Waiting waiting) -> waiting.run().job, ClaimedJob.CLAIM_ORDER);

	/** The lane of the jobs without a key (keyed lanes are never empty strings). */
	private static final String UNKEYED = "";

	private final int concurrency;

	/** Whether waiting jobs may start: the worker claims and is not stopped. */
	private final BooleanSupplier open;

	private final Object lock = new Object();

	/** Jobs claimed ahead, waiting for a slot; guarded by {@link #lock}. */
	private final PriorityQueue<Waiting> waiting = new PriorityQueue<>(WAITING_ORDER);

	/**
	 * By lane with jobs waiting, the turn of its latest job and how many wait; guarded by
	 * {@link #lock}.
	 */
	private final Map<String, Lane> lanes = new HashMap<>();

	/** The turn of the latest job started from the buffer; guarded by {@link #lock}. */
	private long turn;

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
		String name = lane(run);
		synchronized (this.lock) {
			Lane lane = this.lanes.get(name);
			long turn = (lane != null) ? Math.max(lane.latestTurn + 1, this.turn) : this.turn;
			if (lane == null) {
				lane = new Lane();
				this.lanes.put(name, lane);
			}
			lane.latestTurn = turn;
			lane.waiting++;
			this.waiting.add(new Waiting(run, turn));
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
			return takeNext();
		}
	}

	/**
	 * A run ended: its slot passes to the highest waiting job (returned, to run on the
	 * caller's thread) when {@code pass} and the buffer is open, else it is freed.
	 */
	JobRun endRun(boolean pass) {
		synchronized (this.lock) {
			if (pass && this.open.getAsBoolean() && this.executing <= this.concurrency && !this.waiting.isEmpty()) {
				return takeNext();
			}
			this.executing--;
			return null;
		}
	}

	/** Takes out of the buffer the waiting jobs that match. */
	List<JobRun> removeWaiting(Predicate<JobRun> filter) {
		List<JobRun> removed = new ArrayList<>();
		synchronized (this.lock) {
			List<Waiting> matching = new ArrayList<>();
			for (Waiting waiting : this.waiting) {
				if (filter.test(waiting.run())) {
					matching.add(waiting);
					removed.add(waiting.run());
				}
			}
			this.waiting.removeAll(matching);
			matching.forEach((waiting) -> left(waiting.run()));
		}
		return removed;
	}

	/** Empties the buffer (at shutdown), returning what waited. */
	List<JobRun> drainWaiting() {
		synchronized (this.lock) {
			List<JobRun> all = this.waiting.stream().map(Waiting::run).toList();
			this.waiting.clear();
			this.lanes.clear();
			return all;
		}
	}

	/** Takes the next waiting job out, holding the lock. */
	private JobRun takeNext() {
		Waiting next = this.waiting.poll();
		this.turn = Math.max(this.turn, next.turn());
		left(next.run());
		return next.run();
	}

	/** A job left the buffer: a lane with nothing waiting is forgotten. */
	private void left(JobRun run) {
		String name = lane(run);
		Lane lane = this.lanes.get(name);
		if (--lane.waiting == 0) {
			this.lanes.remove(name);
		}
	}

	private static String lane(JobRun run) {
		String key = run.job.key();
		return (key != null) ? run.job.type() + '\u0000' + key : UNKEYED;
	}

	/** A job waiting for a slot, with its turn. */
	private record Waiting(JobRun run, long turn) {
	}

	/** A lane with jobs waiting. */
	private static final class Lane {

		long latestTurn;

		int waiting;

	}

}
