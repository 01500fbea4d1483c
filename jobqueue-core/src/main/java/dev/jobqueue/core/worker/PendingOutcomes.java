package dev.jobqueue.core.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.JobStore;

/**
 * Outcomes of ended runs on their way to the store. Runs queue them from any thread as
 * they end ({@link #add}); the worker's polling thread writes them, alone
 * ({@link #write}) or in the transaction of its next claim ({@link #takeForClaim}, then
 * {@link #recordWritten}). An outcome waits for a claim no longer than
 * {@link JobWorker#OUTCOME_DELAY_MILLIS} ms. Writing one releases its run's place in
 * {@link RunningJobs} and reports it.
 */
final class PendingOutcomes {

	// The worker's log category: users tune the logging of the worker, whatever class of
	// it writes.
	private static final Logger logger = LoggerFactory.getLogger(JobWorker.class);

	private static final long DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(JobWorker.OUTCOME_DELAY_MILLIS);

	private final JobStore store;

	private final String workerId;

	private final RunningJobs runs;

	private final WorkerListener listener;

	private final Ticker ticker;

	/** Wakes the polling loop. */
	private final Runnable wakeUp;

	private final ConcurrentLinkedQueue<JobRun> finished = new ConcurrentLinkedQueue<>();

	/**
	 * Finished runs whose outcome could not be written yet; owned by the polling thread.
	 */
	private final List<JobRun> unwritten = new ArrayList<>();

	/**
	 * Whether outcomes were queued since the latest write; the first one wakes the loop.
	 */
	private final AtomicBoolean queued = new AtomicBoolean();

	/** When the first outcome not written yet was queued, a {@link Ticker} reading. */
	private volatile long queuedAt;

	PendingOutcomes(JobStore store, String workerId, RunningJobs runs, WorkerListener listener, Ticker ticker,
			Runnable wakeUp) {
		this.store = store;
		this.workerId = workerId;
		this.runs = runs;
		this.listener = listener;
		this.ticker = ticker;
		this.wakeUp = wakeUp;
	}

	/**
	 * Queues the outcome of a run that ended; the first one since a write wakes the loop.
	 */
	void add(JobRun run) {
		this.finished.add(run);
		if (this.queued.compareAndSet(false, true)) {
			this.queuedAt = this.ticker.nanos();
			this.wakeUp.run();
		}
	}

	/** Whether queued outcomes have waited for a claim as long as they may. */
	boolean due(long nowNanos) {
		return this.queued.get() && Ticker.reached(nowNanos, this.queuedAt + DELAY_NANOS);
	}

	/** Whether runs ended that the polling thread has not taken yet. */
	boolean anyEnded() {
		return !this.finished.isEmpty();
	}

	/**
	 * The loop's wait, shortened so that queued outcomes are written when due.
	 * @param wait the wait in milliseconds otherwise
	 */
	long millisUntilDue(long nowNanos, long wait) {
		if (!this.queued.get()) {
			return wait;
		}
		return Math.min(wait, Math.max(1, Duration.ofNanos(this.queuedAt + DELAY_NANOS - nowNanos).toMillis()));
	}

	/**
	 * The runs whose outcomes go with the coming claim; after the claim,
	 * {@link #recordWritten} takes what the store applied.
	 */
	List<JobRun> takeForClaim() {
		this.queued.set(false);
		drainFinished();
		return this.unwritten;
	}

	/** The outcomes of {@link #takeForClaim()}, in its order. */
	List<Completion> completions() {
		List<Completion> completions = new ArrayList<>(this.unwritten.size());
		for (JobRun run : this.unwritten) {
			completions.add(run.completion);
		}
		return completions;
	}

	/** Writes every outcome queued so far, in one transaction. */
	void write(Instant now) {
		// Cleared before the drain: an outcome queued after it wakes the loop again.
		this.queued.set(false);
		drainFinished();
		if (this.unwritten.isEmpty()) {
			return;
		}
		recordWritten(this.store.complete(completions(), this.workerId, now));
	}

	/**
	 * Releases the places of the unwritten runs whose outcomes were just written and
	 * reports them.
	 */
	void recordWritten(boolean[] applied) {
		for (int i = 0; i < applied.length; i++) {
			JobRun run = this.unwritten.get(i);
			this.runs.release(run);
			if (applied[i]) {
				if (run.dispatched) {
					// A job that left the buffer without starting had no run to report.
					this.listener.finished(run.job, run.completion, run.queueWait(), run.execution());
				}
			}
			else {
				logger.warn(
						"Outcome {} of job {} ({}) run {} was rejected: the run no longer holds the job "
								+ "(its lease expired and the job was recovered, or it was cancelled)",
						run.completion.kind(), run.job.id(), run.job.type(), run.job.run());
				this.listener.staleCompletion(run.job, run.completion);
			}
		}
		this.unwritten.clear();
	}

	/**
	 * The write at the end of a stop: in one transaction, the outcomes of every run that
	 * ended (queued or not yet) and those of the runs cut off. A failed write is logged:
	 * the leases expire and recovery takes the jobs back.
	 */
	void writeAtStop(List<RunningJobs.CutOffRun> cutOff, Instant now) {
		drainFinished();
		for (JobRun run : this.runs.ended()) {
			if (!this.unwritten.contains(run)) {
				this.unwritten.add(run);
			}
		}
		List<Completion> completions = completions();
		int ended = completions.size();
		for (RunningJobs.CutOffRun run : cutOff) {
			completions.add(run.completion());
		}
		long failed = cutOff.stream().filter(RunningJobs.CutOffRun::failed).count();
		try {
			boolean[] applied = this.store.complete(completions, this.workerId, now);
			recordWritten(Arrays.copyOf(applied, ended));
			logger.info("Job worker {} stopped; {} unfinished job(s) handed back, {} failed as not repeatable",
					this.workerId, cutOff.size() - failed, failed);
		}
		catch (RuntimeException ex) {
			logger.warn("Job worker {} stopped, but could not write the outcomes of {} finished and {} unfinished "
					+ "job(s): {}. Their leases will expire: repeatable ones run again, the others fail with "
					+ "LEASE_EXPIRED:NOT_REPEATABLE.", this.workerId, ended, cutOff.size(), ex.toString());
		}
	}

	private void drainFinished() {
		for (JobRun run; (run = this.finished.poll()) != null;) {
			this.unwritten.add(run);
		}
	}

}
