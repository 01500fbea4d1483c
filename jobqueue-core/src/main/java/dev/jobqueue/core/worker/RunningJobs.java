package dev.jobqueue.core.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.JobEvent;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.RunningJobRef;

/**
 * The runs of one worker, from dispatch until their outcome is written (or they are
 * handed back): the slots they hold, their count per type, and what time does to them.
 * Its methods that touch the store run on the worker's polling thread only.
 *
 * <ul>
 * <li><b>Timeouts.</b> A run past its handler's timeout is interrupted (its outcome then
 * says {@code TIMEOUT:HANDLER}); one still going a whole timeout later is reported once
 * with a {@link JobEvent#TIMEOUT_IGNORED} event. A cancelled run still going after the
 * cancel timeout is recorded as cancelled without it, with a
 * {@link JobEvent#CANCEL_IGNORED} event; its slot stays taken until it returns.</li>
 * <li><b>Leases.</b> The leases of all runs still holding their job, finished or not, are
 * renewed in one statement, which also tells of cancels asked for by other processes and
 * of runs whose lease was lost (they are interrupted).</li>
 * <li><b>Shutdown.</b> Runs still going when the shutdown timeout ends are cut off:
 * handed back (pending again, attempt not counted), or, if their handler is not
 * repeatable and had begun, failed with {@link ErrorCodes#SHUTDOWN_NOT_REPEATABLE}; a run
 * that had not begun never begins.</li>
 * </ul>
 * Deadlines are {@link Ticker} readings (monotonic); the wall clock's {@code now} only
 * stamps what is stored.
 */
final class RunningJobs {

	// The worker's log category: users tune the logging of the worker, whatever class of
	// it writes.
	private static final Logger logger = LoggerFactory.getLogger(JobWorker.class);

	private final JobStore store;

	private final String workerId;

	private final WorkerSettings settings;

	private final WorkerListener listener;

	private final Map<Long, JobRun> runs = new ConcurrentHashMap<>();

	RunningJobs(JobStore store, WorkerSettings settings, WorkerListener listener) {
		this.store = store;
		this.workerId = settings.workerId();
		this.settings = settings;
		this.listener = listener;
	}

	void add(JobRun run) {
		this.runs.put(run.job.id(), run);
	}

	/** Frees the run's slot, once. */
	void release(JobRun run) {
		this.runs.remove(run.job.id(), run);
	}

	boolean holds(JobRun run) {
		return this.runs.containsKey(run.job.id());
	}

	int size() {
		return this.runs.size();
	}

	boolean isEmpty() {
		return this.runs.isEmpty();
	}

	/**
	 * Runs per type that keep their slot once the outcomes of {@code leaving} are
	 * written.
	 * @param leaving runs whose outcome is about to be written
	 */
	Map<String, Integer> busyByType(List<JobRun> leaving) {
		Map<String, Integer> busy = new HashMap<>();
		for (JobRun run : this.runs.values()) {
			busy.merge(run.job.type(), 1, Integer::sum);
		}
		for (JobRun run : leaving) {
			busy.merge(run.job.type(), -1, Integer::sum);
		}
		return busy;
	}

	/** Tells a run of this worker that its job was cancelled, and interrupts it. */
	void cancelRequested(long jobId) {
		JobRun run = this.runs.get(jobId);
		if (run != null) {
			run.markCancelRequested();
			run.interrupt();
		}
	}

	/**
	 * How long the worker may wait before a run's timeout or cancel timeout needs it.
	 * @param nowNanos a {@link Ticker} reading
	 * @return at most {@code longest}, at least one millisecond
	 */
	long millisUntilNextDeadline(long nowNanos, long longest) {
		long wait = longest;
		for (JobRun run : this.runs.values()) {
			if (run.hasTimeout() && run.dispatched && !run.timedOut) {
				wait = Math.min(wait, millisUntil(nowNanos, run.deadline));
			}
			if (run.awaitsCancel() && run.dispatched && !run.abandoned) {
				wait = Math.min(wait, millisUntil(nowNanos, run.cancelDeadline()));
			}
		}
		return wait;
	}

	private static long millisUntil(long nowNanos, long deadline) {
		return Math.max(1, Duration.ofNanos(deadline - nowNanos).toMillis() + 1);
	}

	/**
	 * Interrupts runs past their timeout, reports the deaf ones, and gives up on
	 * cancelled ones; see above.
	 * @param nowNanos a {@link Ticker} reading, for the deadlines
	 * @param now the wall clock, for what is stored
	 */
	void enforceTimeouts(long nowNanos, Instant now) {
		for (JobRun run : this.runs.values()) {
			if (run.abandoned || !run.dispatched) {
				// A run waiting for a slot is settled by the worker (see JobWorker).
				continue;
			}
			if (run.awaitsCancel() && Ticker.reached(nowNanos, run.cancelDeadline()) && run.abandon()) {
				recordCancelIgnored(run, Duration.ofNanos(nowNanos - run.cancelRequestedAt), now);
				continue;
			}
			if (!run.hasTimeout() || run.completion != null || !Ticker.reached(nowNanos, run.deadline)) {
				continue;
			}
			Duration late = Duration.ofNanos(nowNanos - run.deadline);
			if (!run.timedOut) {
				run.timedOut = true;
				run.interrupt();
			}
			else if (!run.reportedStuck && late.compareTo(run.handler.timeout()) >= 0) {
				run.reportedStuck = true;
				logger.warn(
						"Job {} ({}) ignores interrupts: it is still running {} after its timeout of {}. Its "
								+ "worker slot stays taken until the handler returns; make the handler check "
								+ "Thread.interrupted() or JobContext.isCancelled().",
						run.job.id(), run.job.type(), late, run.handler.timeout());
				this.listener.interruptIgnored(run.job, "TIMEOUT");
				recordEventQuietly(run, JobEvent.TIMEOUT_IGNORED,
						"still running " + late + " after its timeout of " + run.handler.timeout() + " and interrupt",
						now);
			}
		}
	}

	/**
	 * A cancelled run did not stop within the cancel timeout: the job is recorded as
	 * cancelled now (the run's own outcome will never be written), with an event and a
	 * log line saying the handler still runs.
	 */
	private void recordCancelIgnored(JobRun run, Duration since, Instant now) {
		logger.warn("Job {} ({}) ignores its cancellation: still running {} after it was interrupted. It is recorded "
				+ "as cancelled; its worker slot stays taken until the handler returns. Make the handler check "
				+ "Thread.interrupted() or JobContext.isCancelled().", run.job.id(), run.job.type(), since);
		this.listener.interruptIgnored(run.job, "CANCEL");
		recordEventQuietly(run, JobEvent.CANCEL_IGNORED,
				"handler still running " + since + " after the interrupt; "
						+ "cancelled without its cooperation (jobqueue.worker.cancel-timeout="
						+ this.settings.cancelTimeout() + ")",
				now);
		try {
			this.store.complete(List.of(Completion.cancelled(run.job)), this.workerId, now);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not record job {} as cancelled: {}. Its lease will expire and recovery will record it.",
					run.job.id(), ex.toString());
		}
	}

	private void recordEventQuietly(JobRun run, JobEvent event, String detail, Instant now) {
		try {
			this.store.recordEvent(run.job.id(), event.name(), this.workerId, detail, now);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not record event {} of job {}: {}", event, run.job.id(), ex.toString());
		}
	}

	/**
	 * Renews the leases of the runs that hold their job; acts on the cancels and lost
	 * leases it learns of.
	 */
	void renewLeases(Instant now) {
		// Runs whose outcome is not written yet still hold their job: renew them too.
		List<RunningJobRef> refs = new ArrayList<>(this.runs.size());
		for (JobRun run : this.runs.values()) {
			if (!run.abandoned) {
				refs.add(run.ref());
			}
		}
		if (refs.isEmpty()) {
			return;
		}
		LeaseRenewal renewal = this.store.renewLeases(this.workerId, refs, now, now.plus(this.settings.lease()));
		for (Long id : renewal.cancelRequested()) {
			cancelRequested(id);
		}
		for (Long id : renewal.lost()) {
			JobRun run = this.runs.get(id);
			if (run != null && run.completion == null) {
				logger.warn("Job {} ({}) lost its lease while running here (its lease expired, likely after a long "
						+ "pause of this process); interrupting the run", id, run.job.type());
				run.leaseLost = true;
				run.interrupt();
			}
		}
	}

	/** A run cut off at shutdown and the outcome the worker writes for it. */
	record CutOffRun(JobRun run, Completion completion) {

		boolean failed() {
			return this.completion.kind() == Completion.Kind.FAILED;
		}

	}

	/**
	 * At shutdown, once the shutdown timeout ended: cuts off the runs still going (see
	 * the class comment) and interrupts them, and interrupts abandoned runs once more.
	 * Every run is then either cut off or has its own outcome to write (see
	 * {@link #ended()}); a run ending from now on is ignored.
	 * @return the runs cut off, with the outcomes to write for them
	 */
	List<CutOffRun> cutOffUnfinished(Instant now) {
		List<CutOffRun> cutOff = new ArrayList<>();
		for (JobRun run : this.runs.values()) {
			if (run.abandoned) {
				run.interrupt();
				continue;
			}
			JobRun.CutOff state = run.cutOff();
			if (state == JobRun.CutOff.ENDED) {
				continue;
			}
			if (state == JobRun.CutOff.RUNNING && !run.handler.repeatable()) {
				cutOff.add(new CutOffRun(run, Completion.failed(run.job, ErrorCodes.SHUTDOWN_NOT_REPEATABLE,
						"Worker " + this.workerId + " stopped while the handler ran, and it did not end within "
								+ "jobqueue.worker.shutdown-timeout (" + this.settings.shutdownTimeout()
								+ "). It is not "
								+ "repeatable, so the job is not handed back: check whether the interrupted run did "
								+ "its work")));
			}
			else {
				cutOff.add(new CutOffRun(run, Completion.handedBack(run.job, now)));
			}
			run.interrupt();
		}
		return cutOff;
	}

	/**
	 * Runs that ended and hold their slot until their outcome is written (not abandoned,
	 * not cut off).
	 */
	List<JobRun> ended() {
		List<JobRun> ended = new ArrayList<>();
		for (JobRun run : this.runs.values()) {
			if (run.completion != null && !run.abandoned && !run.handedBack) {
				ended.add(run);
			}
		}
		return ended;
	}

}
