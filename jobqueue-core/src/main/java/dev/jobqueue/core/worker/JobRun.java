package dev.jobqueue.core.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobSnoozedException;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.NewJobs;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.JobProgress;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.RunningJobRef;

/**
 * One run of a claimed job: the handler's view of it ({@link JobContext}) and the
 * worker's bookkeeping. The flags are written by the worker's polling thread (cancel,
 * timeout, lease lost, hand-back, abandon) and read by the handler's thread, so they are
 * volatile; the hand-over of the outcome ({@link #finish}) and the abandoning
 * ({@link #abandon}) and the cut-off at shutdown ({@link #cutOff}) are synchronized with
 * each other, so exactly one of them decides who writes the outcome. Local deadlines
 * (timeout, cancel timeout, heartbeat throttle) are read on the worker's monotonic
 * {@link Ticker}; the wall clock only stamps what is stored. The continuation a handler
 * asks for ({@link #continueWith}) is kept here and travels with the success only; it is
 * checked by {@link Continuations}. The handler itself is run by the worker's
 * {@link HandlerExecution}.
 */
final class JobRun implements JobContext {

	// The worker's log category: users tune the logging of the worker, whatever class of
	// it writes.
	private static final Logger logger = LoggerFactory.getLogger(JobWorker.class);

	/** How often a run's progress is written at most. */
	static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(2);

	/** What the cut-off at shutdown found; see {@link #cutOff()}. */
	enum CutOff {

		/** The run had ended: its own outcome is written. */
		ENDED,
		/** The handler had not begun and now never will. */
		NOT_STARTED,
		/** The handler is running; it is interrupted and its outcome will be ignored. */
		RUNNING

	}

	final ClaimedJob job;

	final HandlerDefinition handler;

	final Instant claimedAt;

	/**
	 * When the run passes its handler's timeout (a {@link Ticker} reading); meaningful
	 * only with a timeout, once {@link #dispatched}: time spent claimed ahead, waiting
	 * for a slot, does not count.
	 */
	volatile long deadline;

	/**
	 * Whether the run was handed to the executor; until then it waits in the worker's
	 * claim-ahead buffer.
	 */
	volatile boolean dispatched;

	/** When it was handed to the executor; what its queue wait is measured to. */
	volatile Instant dispatchedAt;

	private final JobStore store;

	private final String workerId;

	private final Clock clock;

	private final Ticker ticker;

	private final WorkerSettings settings;

	private final NewJobs newJobs;

	/**
	 * The continuation the handler asked for, or {@code null}; guarded by {@code this}.
	 */
	private List<NewJob> next;

	private volatile Thread thread;

	/** Whether the handler's thread took the run; guarded by {@code this}. */
	private boolean started;

	/**
	 * Whether the handler itself was called: after that, running it again is running it
	 * twice.
	 */
	volatile boolean handlerInvoked;

	volatile boolean cancelRequested;

	volatile boolean leaseLost;

	volatile boolean timedOut;

	volatile boolean handedBack;

	volatile boolean reportedStuck;

	/**
	 * Recorded as cancelled by the worker because the handler ignored its interrupt;
	 * still running.
	 */
	volatile boolean abandoned;

	/**
	 * When the cancel was asked for (a {@link Ticker} reading), valid once
	 * {@link #cancelRequested}.
	 */
	volatile long cancelRequestedAt;

	volatile Completion completion;

	long startNanos;

	long endNanos;

	private boolean heartbeatWritten;

	private long lastHeartbeat;

	private boolean progressWritten;

	private long lastProgress;

	private final DurableSteps steps;

	/** This run's view of the job's durable steps. */
	final RunSteps recordedSteps;

	JobRun(ClaimedJob job, HandlerDefinition handler, Instant claimedAt, JobStore store, String workerId, Clock clock,
			Ticker ticker, WorkerSettings settings) {
		this(job, handler, claimedAt, store, workerId, clock, ticker, settings, null);
	}

	JobRun(ClaimedJob job, HandlerDefinition handler, Instant claimedAt, JobStore store, String workerId, Clock clock,
			Ticker ticker, WorkerSettings settings, NewJobs newJobs) {
		this(job, handler, claimedAt, store, workerId, clock, ticker, settings, newJobs, null);
	}

	JobRun(ClaimedJob job, HandlerDefinition handler, Instant claimedAt, JobStore store, String workerId, Clock clock,
			Ticker ticker, WorkerSettings settings, NewJobs newJobs, DurableSteps steps) {
		this.steps = steps;
		this.recordedSteps = new RunSteps(job, store);
		this.newJobs = newJobs;
		this.job = job;
		this.handler = handler;
		this.claimedAt = claimedAt;
		this.store = store;
		this.workerId = workerId;
		this.clock = clock;
		this.ticker = ticker;
		this.settings = settings;
	}

	/**
	 * Marks the run as handed to the executor: its timeout starts now.
	 * @param nowNanos a {@link Ticker} reading
	 * @param now the wall clock
	 */
	void dispatch(long nowNanos, Instant now) {
		this.deadline = (this.handler.timeout() != null) ? nowNanos + this.handler.timeout().toNanos() : nowNanos;
		this.dispatchedAt = now;
		this.dispatched = true;
	}

	/**
	 * Whether the run's start counts in a rate limit's log: its type has a rate limit, or
	 * it has a key and its type a rate limit per key.
	 */
	boolean rateLimited() {
		FlowControl flow = this.handler.flowControl();
		return flow.rateLimit() != null || (this.job.key() != null && flow.keyRateLimit() != null);
	}

	/** The lease end of the run's claim: what its claim wrote as its unstarted start. */
	Instant claimLeaseUntil() {
		return this.claimedAt.plus(this.settings.lease());
	}

	/**
	 * Records in the log of starts that the handler begins now (rate-limited runs only).
	 * If the write fails, the start stays counted as claimed and not started, until the
	 * claim's lease end and a window after: held longer, never let through.
	 */
	void recordHandlerStart() {
		if (!rateLimited()) {
			return;
		}
		try {
			this.store.recordHandlerStart(this.job, this.claimedAt, claimLeaseUntil(), this.clock);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not record the start of job {} ({}) in its rate limit's log; its permit stays held "
					+ "until its claim's lease ends: {}", this.job.id(), this.job.type(), ex.toString());
		}
	}

	/**
	 * Frees the permit a rate-limited run's claim took when its handler never began and
	 * the job stays with this worker's outcome (not when its lease was lost: then the log
	 * may hold the start of another worker's claim of the job, which this one leaves).
	 */
	private void dropUnstartedStart(Completion completion) {
		if (this.handlerInvoked || this.leaseLost || !rateLimited()) {
			return;
		}
		if (completion.kind() != Completion.Kind.HANDED_BACK && completion.kind() != Completion.Kind.CANCELLED) {
			return;
		}
		try {
			this.store.dropUnstartedStart(this.job, this.claimedAt, claimLeaseUntil());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not free the rate permit of job {} ({}), which did not start; it is held until its "
					+ "claim's lease ends: {}", this.job.id(), this.job.type(), ex.toString());
		}
	}

	boolean hasTimeout() {
		return this.handler.timeout() != null;
	}

	/**
	 * The outcome when the worker itself failed around the run (an {@link Error} outside
	 * the handler): a run that never reached its handler goes back to pending; one that
	 * did fails for a person to look at, since its work may be done.
	 */
	Completion undetermined(Throwable failure) {
		if (!this.handlerInvoked) {
			return Completion.handedBack(this.job, this.claimedAt);
		}
		return Completion.failed(this.job, ErrorCodes.INTERNAL_WORKER,
				"The worker failed around the run, so its outcome is unknown: " + failure);
	}

	/** How the run stands now, for the {@link OutcomeMapper}. */
	OutcomeMapper.RunState state() {
		return new OutcomeMapper.RunState(this.job, this.handler.timeout(), this.cancelRequested, this.timedOut,
				this.handler.repeatable());
	}

	/**
	 * Binds the run to the handler's thread, so a cancel or timeout can interrupt it.
	 * @return whether the run may start; not when it was cut off at shutdown before it
	 * began
	 */
	synchronized boolean bindThread() {
		if (this.handedBack) {
			return false;
		}
		this.thread = Thread.currentThread();
		this.started = true;
		return true;
	}

	/**
	 * Unbinds, then clears any interrupt aimed at this run so it cannot leak into the
	 * thread's next task.
	 */
	void unbindThread() {
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
			this.cancelRequestedAt = this.ticker.nanos();
			this.cancelRequested = true;
		}
	}

	/** Whether a cancelled run that is still going waits for its cancel timeout. */
	boolean awaitsCancel() {
		return this.cancelRequested && this.completion == null;
	}

	/**
	 * When a cancelled run that is still going is recorded as cancelled without it; see
	 * {@link #awaitsCancel()}.
	 */
	long cancelDeadline() {
		return this.cancelRequestedAt + this.settings.cancelTimeout().toNanos();
	}

	/**
	 * @return whether the run was still going and is now abandoned (only once)
	 */
	synchronized boolean abandon() {
		if (this.abandoned || this.completion != null || this.handedBack) {
			return false;
		}
		this.abandoned = true;
		return true;
	}

	/**
	 * At shutdown: decides, once and against {@link #finish}, whether the run's own
	 * outcome is written (it ended) or the worker writes one for it (it did not). A run
	 * cut off is marked handed back: if it had not begun it never will, and whatever it
	 * returns later is ignored.
	 */
	synchronized CutOff cutOff() {
		if (this.completion != null || this.abandoned || this.handedBack) {
			return CutOff.ENDED;
		}
		this.handedBack = true;
		return this.started ? CutOff.RUNNING : CutOff.NOT_STARTED;
	}

	/**
	 * Records how the run ended.
	 * @return whether the run had been {@linkplain #abandon() abandoned}: its outcome is
	 * not to be written, only its slot to be freed
	 */
	boolean finish(Completion completion) {
		this.endNanos = System.nanoTime();
		if (this.startNanos == 0) {
			this.startNanos = this.endNanos;
		}
		boolean first;
		boolean abandoned;
		synchronized (this) {
			first = this.completion == null;
			if (first) {
				this.completion = completion;
			}
			abandoned = this.abandoned;
		}
		if (first) {
			dropUnstartedStart(completion);
		}
		return abandoned;
	}

	/** How long the handler ran. */
	Duration execution() {
		return Duration.ofNanos(this.endNanos - this.startNanos);
	}

	/**
	 * From the job's due time until it was handed to the executor (claimed, if it never
	 * was); never negative.
	 */
	Duration queueWait() {
		Instant started = this.dispatchedAt;
		Duration wait = Duration.between(this.job.runAt(), (started != null) ? started : this.claimedAt);
		return wait.isNegative() ? Duration.ZERO : wait;
	}

	RunningJobRef ref() {
		return new RunningJobRef(this.job.id(), this.job.run(), !this.dispatched);
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
	public Optional<String> key() {
		return Optional.ofNullable(this.job.key());
	}

	@Override
	public boolean heartbeat() {
		if (isCancelled()) {
			return false;
		}
		long nowNanos = this.ticker.nanos();
		// A handler may call this in a tight loop: write at most every tenth of the
		// lease.
		synchronized (this) {
			if (this.heartbeatWritten
					&& !Ticker.reached(nowNanos, this.lastHeartbeat + this.settings.lease().dividedBy(10).toNanos())) {
				return true;
			}
			this.heartbeatWritten = true;
			this.lastHeartbeat = nowNanos;
		}
		Instant now = this.clock.instant();
		LeaseRenewal renewal;
		try {
			renewal = this.store.heartbeat(this.workerId, ref(), now, now.plus(this.settings.lease()));
		}
		catch (RuntimeException ex) {
			// The database is briefly unusable: that is no fault of the job. The polling
			// loop renews the lease
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
		long nowNanos = this.ticker.nanos();
		// At most every PROGRESS_INTERVAL on the monotonic ticker, whatever the handler's
		// loop does: a bar that
		// moves, not a write per item. The time shown with it is the clock's.
		boolean write;
		synchronized (this) {
			write = !this.progressWritten || Ticker.reached(nowNanos, this.lastProgress + PROGRESS_INTERVAL.toNanos());
			if (write) {
				this.progressWritten = true;
				this.lastProgress = nowNanos;
			}
		}
		if (write) {
			try {
				this.store.recordProgress(ref(), new JobProgress(done, total, message, this.clock.instant()));
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

	@Override
	public void continueWith(JobRequest next) {
		setNext(Continuations.next(this.newJobs, next, this.clock.instant(), this.job.traceContext()));
	}

	@Override
	public void continueWithFanOut(List<JobRequest> children, JobRequest join) {
		setNext(Continuations.fanOut(this.newJobs, children, join, this.clock.instant(), this.job.traceContext()));
	}

	@Override
	public <T> T step(String name, Class<T> type, Supplier<? extends T> work) {
		return runStep(name, type, work, false);
	}

	@Override
	public void step(String name, Runnable work) {
		runStep(name, Void.class, asSupplier(work), false);
	}

	@Override
	public <T> T transactionalStep(String name, Class<T> type, Supplier<? extends T> work) {
		return runStep(name, type, work, true);
	}

	@Override
	public void transactionalStep(String name, Runnable work) {
		runStep(name, Void.class, asSupplier(work), true);
	}

	private static Supplier<Void> asSupplier(Runnable work) {
		return () -> {
			work.run();
			return null;
		};
	}

	private <T> T runStep(String name, Class<T> type, Supplier<? extends T> work, boolean transactional) {
		if (type == null || work == null) {
			throw new IllegalArgumentException("Step '" + name + "' needs its result type and its work");
		}
		synchronized (this) {
			if (this.completion != null || this.handedBack || this.abandoned || !this.started) {
				throw new IllegalStateException("Step '" + name + "' of job " + this.job.id() + " (" + this.job.type()
						+ ") was called outside a running job: steps run only while the job's handler runs, on the "
						+ "JobContext it was given");
			}
		}
		if (this.steps == null) {
			throw new IllegalStateException("This worker does not keep durable steps");
		}
		return this.steps.run(this, name, type, work, transactional);
	}

	JobStore store() {
		return this.store;
	}

	Instant now() {
		return this.clock.instant();
	}

	private synchronized void setNext(List<NewJob> jobs) {
		if (this.next != null) {
			throw new IllegalStateException("Job " + this.job.id() + " (" + this.job.type() + ") already said what "
					+ "runs next: a run continues with one step (or one fan-out)");
		}
		this.next = jobs;
	}

	/**
	 * The outcome with the continuation the handler asked for, if the run succeeded; any
	 * other outcome creates nothing.
	 */
	synchronized Completion withContinuation(Completion completion) {
		if (this.next == null || completion.kind() != Completion.Kind.SUCCEEDED) {
			return completion;
		}
		return completion.withNext(this.next);
	}

}
