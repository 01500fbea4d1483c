package dev.jobqueue.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobSnoozedException;

/**
 * One run of a claimed job: the handler's view of it ({@link JobContext}) and the worker's bookkeeping. The
 * flags are written by the worker's polling thread (cancel, timeout, lease lost, hand-back, abandon) and read by
 * the handler's thread, so they are volatile; the hand-over of the outcome ({@link #finish}) and the abandoning
 * ({@link #abandon}) are synchronized with each other, so exactly one of them decides who writes the outcome.
 */
final class JobRun implements JobContext {

	// The worker's log category: users tune the logging of the worker, whatever class of it writes.
	private static final Logger logger = LoggerFactory.getLogger(JobWorker.class);

	/** How often a run's progress is written at most. */
	static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(2);

	final ClaimedJob job;

	final HandlerDefinition handler;

	final Instant claimedAt;

	/** When the run passes its handler's timeout, or {@code null} without one. */
	final Instant deadline;

	private final JobStore store;

	private final String workerId;

	private final Clock clock;

	private final WorkerSettings settings;

	private volatile Thread thread;

	volatile boolean cancelRequested;

	volatile boolean leaseLost;

	volatile boolean timedOut;

	volatile boolean handedBack;

	volatile boolean reportedStuck;

	/** Recorded as cancelled by the worker because the handler ignored its interrupt; still running. */
	volatile boolean abandoned;

	volatile Instant cancelRequestedAt;

	volatile Completion completion;

	long startNanos;

	long endNanos;

	private Instant lastHeartbeat;

	private Instant lastProgress;

	JobRun(ClaimedJob job, HandlerDefinition handler, Instant claimedAt, JobStore store, String workerId, Clock clock,
			WorkerSettings settings) {
		this.job = job;
		this.handler = handler;
		this.claimedAt = claimedAt;
		this.deadline = (handler.timeout() != null) ? claimedAt.plus(handler.timeout()) : null;
		this.store = store;
		this.workerId = workerId;
		this.clock = clock;
		this.settings = settings;
	}

	/**
	 * Runs the handler on the calling thread, inside the interceptor, and maps how it ended.
	 * @return the outcome to hand to {@link #finish}
	 */
	Completion execute(RunInterceptor interceptor, OutcomeMapper outcomes) {
		this.startNanos = System.nanoTime();
		bindThread();
		try {
			return interceptor.around(this.job, () -> invokeHandler(outcomes));
		}
		catch (Throwable failure) {
			return outcomes.threw(state(), failure, this.clock.instant());
		}
		finally {
			unbindThread();
		}
	}

	private Completion invokeHandler(OutcomeMapper outcomes) {
		if (this.cancelRequested) {
			return Completion.cancelled(this.job);
		}
		Object result;
		try {
			result = this.handler.invoker().invoke(this.job.payload(), this);
		}
		catch (Throwable failure) {
			return outcomes.threw(state(), failure, this.clock.instant());
		}
		return outcomes.returned(state(), result, this.clock.instant());
	}

	/** How the run stands now, for the {@link OutcomeMapper}. */
	OutcomeMapper.RunState state() {
		return new OutcomeMapper.RunState(this.job, this.handler.timeout(), this.cancelRequested, this.timedOut);
	}

	private synchronized void bindThread() {
		this.thread = Thread.currentThread();
	}

	/** Unbinds, then clears any interrupt aimed at this run so it cannot leak into the thread's next task. */
	private void unbindThread() {
		synchronized (this) {
			this.thread = null;
		}
		Thread.interrupted();
	}

	/** Interrupts the handler's thread, if the handler still runs. */
	synchronized void interrupt() {
		if (this.thread != null) {
			this.thread.interrupt();
		}
	}

	void markCancelRequested() {
		if (!this.cancelRequested) {
			this.cancelRequestedAt = this.clock.instant();
			this.cancelRequested = true;
		}
	}

	/** When a cancelled run that is still going is recorded as cancelled without it, or {@code null}. */
	Instant cancelDeadline() {
		Instant requested = this.cancelRequestedAt;
		return (requested != null && this.completion == null) ? requested.plus(this.settings.cancelTimeout()) : null;
	}

	/** @return whether the run was still going and is now abandoned (only once) */
	synchronized boolean abandon() {
		if (this.abandoned || this.completion != null || this.handedBack) {
			return false;
		}
		this.abandoned = true;
		return true;
	}

	/**
	 * Records how the run ended.
	 * @return whether the run had been {@linkplain #abandon() abandoned}: its outcome is not to be written, only
	 * its slot to be freed
	 */
	boolean finish(Completion completion) {
		this.endNanos = System.nanoTime();
		if (this.startNanos == 0) {
			this.startNanos = this.endNanos;
		}
		synchronized (this) {
			this.completion = completion;
			return this.abandoned;
		}
	}

	/** How long the handler ran. */
	Duration execution() {
		return Duration.ofNanos(this.endNanos - this.startNanos);
	}

	/** From the job's due time until it was claimed; never negative. */
	Duration queueWait() {
		Duration wait = Duration.between(this.job.runAt(), this.claimedAt);
		return wait.isNegative() ? Duration.ZERO : wait;
	}

	RunningJobRef ref() {
		return new RunningJobRef(this.job.id(), this.job.run());
	}

	@Override
	public long jobId() {
		return this.job.id();
	}

	@Override
	public String type() {
		return this.job.type();
	}

	@Override
	public int attempt() {
		return this.job.attempt();
	}

	@Override
	public int maxAttempts() {
		return this.job.maxAttempts();
	}

	@Override
	public boolean heartbeat() {
		if (isCancelled()) {
			return false;
		}
		Instant now = this.clock.instant();
		// A handler may call this in a tight loop: write at most every tenth of the lease.
		if (this.lastHeartbeat != null && now.isBefore(this.lastHeartbeat.plus(this.settings.lease().dividedBy(10)))) {
			return true;
		}
		this.lastHeartbeat = now;
		LeaseRenewal renewal;
		try {
			renewal = this.store.renewLeases(this.workerId, List.of(ref()), now, now.plus(this.settings.lease()));
		}
		catch (RuntimeException ex) {
			// The database is briefly unusable: that is no fault of the job. The polling loop renews the lease
			// too and keeps trying, so the handler goes on.
			logger.warn("Heartbeat of job {} ({}) could not be written, the run goes on: {}", this.job.id(),
					this.job.type(), ex.getMessage());
			return !isCancelled();
		}
		if (renewal.cancelRequested().contains(this.job.id())) {
			markCancelRequested();
		}
		if (renewal.lost().contains(this.job.id())) {
			this.leaseLost = true;
		}
		return !isCancelled();
	}

	@Override
	public boolean progress(long done, long total, String message) {
		Instant now = this.clock.instant();
		// At most every PROGRESS_INTERVAL, whatever the handler's loop does: a bar that moves, not a write per item.
		if (this.lastProgress == null || !now.isBefore(this.lastProgress.plus(PROGRESS_INTERVAL))) {
			this.lastProgress = now;
			try {
				this.store.recordProgress(ref(), new JobProgress(done, total, message, now));
			}
			catch (RuntimeException ex) {
				logger.debug("Progress of job {} ({}) could not be written: {}", this.job.id(), this.job.type(),
						ex.getMessage());
			}
		}
		return heartbeat();
	}

	@Override
	public boolean isCancelled() {
		return this.cancelRequested || this.leaseLost || this.timedOut || this.handedBack;
	}

	@Override
	public void snooze(Duration delay) {
		throw new JobSnoozedException(delay);
	}

}
