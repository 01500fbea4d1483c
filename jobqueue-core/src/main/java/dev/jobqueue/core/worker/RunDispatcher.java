package dev.jobqueue.core.worker;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;

/**
 * Moves claimed runs through the worker's slots: hands them to the executor, passes a
 * slot from a run that ends to the next job waiting in the claim-ahead buffer (on the
 * same thread, without a round or a write), and takes out of the buffer the jobs that
 * must not start (cancelled, lease lost, worker stopping). Every run that ends, or never
 * starts, has its outcome queued in {@link PendingOutcomes}.
 */
final class RunDispatcher {

	// The worker's log category: users tune the logging of the worker, whatever class of
	// it writes.
	private static final Logger logger = LoggerFactory.getLogger(JobWorker.class);

	private final String workerId;

	private final ExecutorService executor;

	private final HandlerExecution execution;

	private final SlotBuffer slots;

	private final RunningJobs runs;

	private final PendingOutcomes pending;

	private final Clock clock;

	private final Ticker ticker;

	/** Whether the worker stopped: runs it cut off are not its to write. */
	private final BooleanSupplier stopped;

	/** Whether the worker is low on jobs and should claim. */
	private final BooleanSupplier lowOnJobs;

	/** Wakes the polling loop. */
	private final Runnable wakeUp;

	/** Whether this thread is in {@link #startWaiting()}: it does not recurse. */
	private final ThreadLocal<Boolean> startingWaiting = new ThreadLocal<>();

	RunDispatcher(String workerId, ExecutorService executor, HandlerExecution execution, SlotBuffer slots,
			RunningJobs runs, PendingOutcomes pending, Clock clock, Ticker ticker, BooleanSupplier stopped,
			BooleanSupplier lowOnJobs, Runnable wakeUp) {
		this.workerId = workerId;
		this.executor = executor;
		this.execution = execution;
		this.slots = slots;
		this.runs = runs;
		this.pending = pending;
		this.clock = clock;
		this.ticker = ticker;
		this.stopped = stopped;
		this.lowOnJobs = lowOnJobs;
		this.wakeUp = wakeUp;
	}

	/** Starts a run that was claimed into a free slot, never claimed ahead. */
	void startNow(JobRun run) {
		this.slots.takeSlot();
		dispatch(run);
	}

	/**
	 * Starts jobs waiting in the buffer, highest priority first, while slots are free and
	 * the worker claims. Runs on the polling thread after a claim and on a run's thread
	 * as it ends; on one thread it does not recurse (a direct executor runs the job
	 * inside {@link #dispatch}).
	 */
	void startWaiting() {
		if (this.startingWaiting.get() != null) {
			return;
		}
		this.startingWaiting.set(Boolean.TRUE);
		try {
			for (JobRun next; (next = this.slots.startNext()) != null;) {
				dispatch(next);
			}
		}
		finally {
			this.startingWaiting.remove();
		}
	}

	/**
	 * Takes out of the buffer the jobs whose cancel was asked for or whose lease was
	 * lost: they never start. Cancelled ones are recorded as cancelled; a lost one's
	 * outcome is rejected (the job runs elsewhere), which frees its place.
	 */
	void settleWaiting() {
		for (JobRun run : this.slots.removeWaiting((waiting) -> waiting.cancelRequested || waiting.leaseLost)) {
			queueOutcome(run, run.cancelRequested ? Completion.cancelled(run.job)
					: Completion.handedBack(run.job, run.claimedAt));
		}
	}

	/**
	 * At shutdown: hands back every job waiting for a slot, pending again at its own due
	 * time with its attempt not counted; written with the round's outcomes.
	 */
	void handBackWaiting() {
		for (JobRun run : this.slots.drainWaiting()) {
			queueOutcome(run, Completion.handedBackUnstarted(run.job,
					"claimed ahead by worker " + this.workerId + ", which stopped before the job started"));
		}
	}

	/** An outcome for a run that never went to the executor. */
	private void queueOutcome(JobRun run, Completion completion) {
		run.finish(completion);
		this.pending.add(run);
	}

	/**
	 * Hands a run to the executor, its slot already taken in {@link #slots}. Whatever
	 * fails here (a full executor, an {@link Error} such as a thread that cannot be
	 * created) hands the job back: its handler has not begun, and it must not stay
	 * {@code running}.
	 */
	private void dispatch(JobRun run) {
		ClaimedJob job = run.job;
		Instant now = this.clock.instant();
		run.dispatch(this.ticker.nanos(), now);
		try {
			this.executor.execute(() -> runInTurn(run));
		}
		catch (Throwable ex) {
			if (!(ex instanceof RejectedExecutionException)) {
				logger.error("Could not start job {} ({}); it goes back to pending", job.id(), job.type(), ex);
			}
			runEnded(run, Completion.handedBack(job, now), false);
		}
	}

	/**
	 * Runs a job on the executor's thread, then, while jobs wait for a slot, the next
	 * ones on the same thread: the slot passes from run to run without a hand-over to
	 * another thread.
	 */
	private void runInTurn(JobRun first) {
		JobRun run = first;
		while (run != null) {
			Completion completion = null;
			try {
				completion = this.execution.execute(run);
			}
			finally {
				run = runEnded(run, (completion != null) ? completion : run.undetermined(null), true);
			}
		}
	}

	/**
	 * Called as a run ends: queues its outcome for a coming round, frees its slot or
	 * passes it to the next job waiting, and wakes the loop when it is low on jobs.
	 * @param passSlot whether the caller runs the next waiting job itself (a run's
	 * thread)
	 * @return the next job to run on this thread, its slot taken over; or {@code null}
	 */
	private JobRun runEnded(JobRun run, Completion completion, boolean passSlot) {
		boolean abandoned = run.finish(completion);
		if (abandoned) {
			logger.info("Job {} ({}), cancelled while it ignored its interrupt, has now returned: its worker slot is "
					+ "free again", run.job.id(), run.job.type());
			this.runs.release(run);
		}
		else if (!run.handedBack && !(this.stopped.getAsBoolean() && !this.runs.holds(run))) {
			// Not cut off at shutdown (the worker wrote its outcome), nor written by it.
			this.pending.add(run);
		}
		JobRun next = this.slots.endRun(passSlot);
		if (next != null) {
			next.dispatch(this.ticker.nanos(), this.clock.instant());
		}
		if (abandoned || this.lowOnJobs.getAsBoolean()) {
			this.wakeUp.run();
		}
		return next;
	}

}
