package dev.jobqueue.core.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.BackgroundLoop;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.NewJobs;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.CompleteAndClaim;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.ExpiredLease;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.core.store.WorkerInfo;

/**
 * Claims jobs and runs them. All database work of a worker happens on one path,
 * {@link #pollOnce()}, which the worker's own thread calls in a loop; handlers run on the
 * executor. One round:
 *
 * <ol>
 * <li>Outcomes of finished runs are written, all of them in one transaction (when renewal
 * or recovery is due, or the worker does not claim; otherwise they go with the claim
 * below).</li>
 * <li>Runs past their handler's timeout are interrupted; they fail with
 * {@code TIMEOUT:HANDLER}. A cancelled run that is still going after the cancel timeout
 * is recorded as cancelled with a {@code CANCEL_IGNORED} event; a timed-out run that
 * ignores its interrupt gets a {@code TIMEOUT_IGNORED} event. Both are logged (see
 * {@link RunningJobs}).</li>
 * <li>Every third of the lease, the leases of running jobs are renewed in one statement,
 * which also tells of cancellations requested by other processes and of runs whose lease
 * was lost.</li>
 * <li>Expired leases of dead workers are taken back: a lease is taken back once this
 * worker has seen it expired and unchanged for a whole lease on its monotonic clock
 * ({@link ExpiredLeaseWatch}), so a wall-clock step here or in the lease holder's process
 * never takes a live job away.</li>
 * <li>When the worker runs low on jobs, due jobs of the types handled here are claimed
 * (what to ask for is the {@link ClaimPlanner}'s answer): up to the free slots plus the
 * claim-ahead bound ({@link WorkerSettings#claimAhead()}). Outcomes not written yet are
 * written in the same transaction: a busy worker commits once per claim, not twice, and
 * claims once per many jobs. How a run ended becomes its outcome in the
 * {@link OutcomeMapper}.</li>
 * </ol>
 * <b>Claim-ahead.</b> Claimed jobs beyond the free slots wait in a local buffer, highest
 * priority first (then due time, id), and start as slots free up, on the thread of the
 * run that freed it, without a round or a write. A waiting job is claimed in the store
 * like a running one (status {@code running}, a lease, its attempt counted), so its lease
 * is renewed with the others, global caps count it, and a killed process loses nothing:
 * its leases expire and the jobs run elsewhere. Its handler timeout starts when it is
 * handed to the executor. A cancel or lost lease takes it out of the buffer in the next
 * round. At shutdown the buffer is handed back at once ({@code HANDED_BACK}, attempt not
 * counted). Types with a global cap or a handler that is not repeatable are never
 * buffered (see {@link ClaimPlanner}). Outcomes of finished runs wait for the next claim,
 * but no longer than {@value #OUTCOME_DELAY_MILLIS} ms.
 * <p>
 * The loop ({@link BackgroundLoop}) sleeps until the poll interval passes or it is woken:
 * by an enqueue in this process, by a run that finished, or by a change of the store's
 * change token (a write by another process, such as an enqueue), which it checks every
 * {@value #CHANGE_CHECK_MILLIS} ms. After a full batch it polls again at once.
 *
 * <p>
 * Longer than our usual 400 lines on purpose: the order of a round and of shutdown (write
 * outcomes, time out, renew, recover, claim; stop, drain, cut off) is the one thing a
 * reader must check, so it stays in one class and reads top to bottom; the parts that can
 * be thought about alone are {@link ClaimPlanner}, {@link OutcomeMapper},
 * {@link RunningJobs} and {@link JobRun}.
 */
public final class JobWorker implements QueueSignals {

	private static final Logger logger = LoggerFactory.getLogger(JobWorker.class);

	private static final int RECOVERY_BATCH = 500;

	/** The longest wait after the database failed, however often in a row. */
	private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

	/**
	 * How often a waiting worker looks at the store's change token (see
	 * {@link JobStore#changeToken()}).
	 */
	static final long CHANGE_CHECK_MILLIS = 50;

	/**
	 * Longest an outcome waits to go with the next claim before it is written on its own.
	 */
	static final long OUTCOME_DELAY_MILLIS = 50;

	private static final long OUTCOME_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(OUTCOME_DELAY_MILLIS);

	/** Order of the claim-ahead buffer: the order claims take jobs in. */
	private final JobStore store;

	private final HandlerRegistry handlers;

	private final Clock clock;

	private final Ticker ticker;

	private final WorkerSettings settings;

	private final WorkerInfo info;

	private final ExecutorService executor;

	private final WorkerListener listener;

	private final RunInterceptor interceptor;

	private final OutcomeMapper outcomes;

	private final RunningJobs runs;

	private final ExpiredLeaseWatch expiredLeases;

	/**
	 * How many jobs may still wait for a slot when the worker claims again; updated at
	 * each claim, as handlers may be registered after the worker was made.
	 */
	private volatile int lowWaterAhead;

	private final ConcurrentLinkedQueue<JobRun> finished = new ConcurrentLinkedQueue<>();

	/**
	 * Finished runs whose outcome could not be written yet; owned by the polling thread.
	 */
	private final List<JobRun> unwritten = new ArrayList<>();

	/** Slots in use and the claim-ahead buffer. */
	private final SlotBuffer slots;

	/** Whether this thread is in {@link #startWaiting()}: it does not recurse. */
	private final ThreadLocal<Boolean> startingWaiting = new ThreadLocal<>();

	/**
	 * Whether outcomes were queued since the latest write; the first one wakes the loop.
	 */
	private final AtomicBoolean outcomesQueued = new AtomicBoolean();

	/** When the first outcome not written yet was queued, a {@link Ticker} reading. */
	private volatile long outcomesQueuedAt;

	private volatile boolean claiming = true;

	/** Validates the continuations handlers ask for ({@link JobRun#continueWith}). */
	private volatile NewJobs newJobs;

	private final PayloadCodec codec;

	private volatile boolean stopped;

	private volatile BackgroundLoop loop;

	/** The store's change token as the loop's latest round began. */
	private volatile Object roundToken;

	/**
	 * When leases are renewed next, a {@link Ticker} reading: local deadlines never
	 * follow the wall clock.
	 */
	private long nextRenewal;

	private long nextRecovery;

	private boolean lastClaimFull;

	/** Claims so far, to share slots fairly among types not claimed ahead. */
	private int claims;

	public JobWorker(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ErrorClassifier classifier,
			RetryPolicy retryPolicy, Clock clock, WorkerSettings settings, ExecutorService executor,
			WorkerListener listener, RunInterceptor interceptor) {
		this(store, handlers, codec, classifier, retryPolicy, clock, settings, executor, listener, interceptor,
				Ticker.SYSTEM);
	}

	/**
	 * @param clock the wall clock, for what is stored (claim and finish times, leases,
	 * retry times)
	 * @param ticker the monotonic clock, for local deadlines (renewal, recovery, handler
	 * timeouts, heartbeats)
	 */
	public JobWorker(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ErrorClassifier classifier,
			RetryPolicy retryPolicy, Clock clock, WorkerSettings settings, ExecutorService executor,
			WorkerListener listener, RunInterceptor interceptor, Ticker ticker) {
		this.store = Objects.requireNonNull(store, "'store' must not be null");
		this.handlers = Objects.requireNonNull(handlers, "'handlers' must not be null");
		this.codec = Objects.requireNonNull(codec, "'codec' must not be null");
		this.newJobs = new NewJobs(codec, handlers,
				new EnqueueLimits(EnqueueLimits.DEFAULT_MAX_ATTEMPTS, settings.maxResultBytes()));
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		this.settings = Objects.requireNonNull(settings, "'settings' must not be null");
		this.slots = new SlotBuffer(settings.concurrency(), () -> this.claiming && !this.stopped);
		this.executor = Objects.requireNonNull(executor, "'executor' must not be null");
		this.ticker = Objects.requireNonNull(ticker, "'ticker' must not be null");
		this.listener = GuardedWorkerListener.of(listener);
		this.interceptor = (interceptor != null) ? interceptor : RunInterceptor.NONE;
		this.outcomes = new OutcomeMapper(Objects.requireNonNull(codec, "'codec' must not be null"),
				Objects.requireNonNull(classifier, "'classifier' must not be null"),
				Objects.requireNonNull(retryPolicy, "'retryPolicy' must not be null"), settings.maxSnoozes(), ticker,
				settings.maxResultBytes());
		this.runs = new RunningJobs(store, settings, this.listener);
		this.expiredLeases = new ExpiredLeaseWatch(settings.lease());
		this.lowWaterAhead = lowWaterAhead();
		this.info = new WorkerInfo(settings.workerId(), WorkerIds.hostName(), ProcessHandle.current().pid(),
				handlers.types(), settings.concurrency());
		this.nextRenewal = ticker.nanos();
		this.nextRecovery = this.nextRenewal;
	}

	/**
	 * The limits continuations are checked against: those of enqueue (the default takes
	 * {@link EnqueueLimits#DEFAULT_MAX_ATTEMPTS} attempts and the largest result as the
	 * largest payload).
	 */
	public void setEnqueueLimits(EnqueueLimits limits) {
		this.newJobs = new NewJobs(this.codec, this.handlers,
				Objects.requireNonNull(limits, "'limits' must not be null"));
	}

	public String workerId() {
		return this.settings.workerId();
	}

	/**
	 * Jobs this worker holds that are not waiting for a slot: running, or ended with
	 * their outcome not written yet.
	 */
	public int runningCount() {
		return Math.max(0, this.runs.size() - waitingCount());
	}

	/**
	 * Jobs claimed ahead, waiting in this worker for a slot: claimed in the store
	 * ({@code running} there, with a lease), not started.
	 */
	public int waitingCount() {
		return this.slots.waitingCount();
	}

	/** How many jobs this worker runs at once. */
	public int concurrency() {
		return this.settings.concurrency();
	}

	/** How many jobs beyond its free slots this worker may hold claimed. */
	public int claimAhead() {
		return this.settings.claimAhead();
	}

	/** How often the polling loop failed (the database could not be used) since start. */
	public long loopFailures() {
		BackgroundLoop current = this.loop;
		return (current != null) ? current.failures() : 0;
	}

	/**
	 * Rounds of the polling loop that failed since the latest one that worked: each round
	 * writes (claims, outcomes, heartbeats), so a database that cannot be written shows
	 * here first.
	 */
	public int loopFailuresInARow() {
		BackgroundLoop current = this.loop;
		return (current != null) ? current.failuresInARow() : 0;
	}

	/**
	 * The error of the polling loop's latest failed round, or {@code null} while it
	 * works.
	 */
	public Throwable lastLoopFailure() {
		BackgroundLoop current = this.loop;
		return (current != null) ? current.lastFailure() : null;
	}

	/** Starts the polling thread. */
	public synchronized void start() {
		if (this.loop != null) {
			return;
		}
		this.store.registerWorker(this.info, this.clock.instant());
		Duration backoff = (this.settings.pollInterval().compareTo(MAX_BACKOFF) < 0) ? this.settings.pollInterval()
				: MAX_BACKOFF;
		BackgroundLoop polling = new BackgroundLoop("jobqueue-poller", this::round, backoff, MAX_BACKOFF, logger,
				"Job worker " + workerId() + " could not reach the queue database; running jobs keep running and "
						+ "their outcomes are kept until they can be written")
			.wakeWhen(this::changedSinceRound, Duration.ofMillis(CHANGE_CHECK_MILLIS));
		this.loop = polling;
		polling.start();
		logger.info("Job worker {} started: {} slots, types {}", workerId(), this.settings.concurrency(),
				this.handlers.types());
	}

	public boolean isRunning() {
		return this.loop != null && !this.stopped;
	}

	/**
	 * Stops claiming, waits up to the shutdown timeout for running jobs to finish, then
	 * cuts off the ones that did not: handed back (pending again, attempt not counted),
	 * or failed with {@link dev.jobqueue.ErrorCodes#SHUTDOWN_NOT_REPEATABLE} if their
	 * handler is not repeatable; and interrupts them. Every run either has its own
	 * outcome written or is cut off, never both, never neither.
	 * @return how many runs were cut off
	 */
	public int stop() {
		this.claiming = false;
		// The next round hands the buffer back; wake it now rather than at the end.
		wakeUp();
		long deadline = System.nanoTime() + this.settings.shutdownTimeout().toNanos();
		while (!this.runs.isEmpty() && System.nanoTime() - deadline < 0 && this.loop != null) {
			wakeUp();
			sleepQuietly(Math.min(20, Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
		}
		this.stopped = true;
		BackgroundLoop polling = this.loop;
		if (polling != null) {
			polling.stop(Duration.ofSeconds(10));
		}
		int cutOff;
		synchronized (this) {
			cutOff = cutOffUnfinished();
		}
		this.executor.shutdownNow();
		try {
			this.store.unregisterWorker(workerId());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not unregister worker {}: {}", workerId(), ex.getMessage());
		}
		return cutOff;
	}

	@Override
	public void jobsEnqueued() {
		wakeUp();
	}

	@Override
	public void cancelRequested(long jobId) {
		this.runs.cancelRequested(jobId);
		// A job waiting for a slot leaves the buffer in the next round.
		wakeUp();
	}

	/**
	 * One round of the worker's database work; see the class comment. Synchronous: with a
	 * direct executor the claimed jobs run, and their outcomes are written, before it
	 * returns.
	 * @return how many jobs were claimed
	 */
	public synchronized int pollOnce() {
		return poll(true);
	}

	/**
	 * @param writeLateOutcomes whether outcomes of runs that finished during the round
	 * are written before it returns; the polling loop leaves them to its next round,
	 * which writes them together with its claim
	 */
	private synchronized int poll(boolean writeLateOutcomes) {
		Instant now = this.clock.instant();
		long nowNanos = this.ticker.nanos();
		boolean claiming = this.claiming && !this.stopped;
		boolean renew = Ticker.reached(nowNanos, this.nextRenewal);
		boolean recover = Ticker.reached(nowNanos, this.nextRecovery);
		if (!claiming) {
			handBackWaiting();
		}
		boolean outcomesDue = this.outcomesQueued.get()
				&& Ticker.reached(nowNanos, this.outcomesQueuedAt + OUTCOME_DELAY_NANOS);
		boolean claim = claiming && (needsJobs() || outcomesDue && held() < capacity());
		if (!claim && outcomesDue || !claiming || renew || recover) {
			// Before recovery looks at expired leases, outcomes known here are in the
			// database.
			writeOutcomes(now);
		}
		this.runs.enforceTimeouts(nowNanos, now);
		if (renew) {
			this.nextRenewal = nowNanos + this.settings.renewalInterval().toNanos();
			this.store.registerWorker(this.info, now);
			this.runs.renewLeases(now);
		}
		settleWaiting();
		if (recover) {
			this.nextRecovery = nowNanos + recoveryInterval().toNanos();
			List<ExpiredLease> due = this.expiredLeases.due(this.store.findExpiredLeases(now, RECOVERY_BATCH),
					nowNanos);
			if (!due.isEmpty()) {
				this.store.recoverExpiredLeases(due, now);
			}
		}
		int claimed = claim ? claimAndDispatch(now) : 0;
		if (writeLateOutcomes && !this.finished.isEmpty()) {
			writeOutcomes(this.clock.instant());
		}
		return claimed;
	}

	private Duration recoveryInterval() {
		Duration quarterLease = this.settings.lease().dividedBy(4);
		return (quarterLease.compareTo(this.settings.pollInterval()) > 0) ? quarterLease : this.settings.pollInterval();
	}

	/** The loop's step: one round, then how long to wait. */
	private Duration round() {
		// Taken before the round: a write by another process during the round wakes the
		// next wait.
		this.roundToken = changeToken();
		int claimed = poll(false);
		if (claimed > 0 && this.lastClaimFull && needsJobs()) {
			return Duration.ZERO;
		}
		long nowNanos = this.ticker.nanos();
		long wait = Math.min(this.settings.pollInterval().toMillis(),
				Math.max(1, Duration.ofNanos(this.nextRenewal - nowNanos).toMillis()));
		if (this.outcomesQueued.get()) {
			wait = Math.min(wait,
					Math.max(1, Duration.ofNanos(this.outcomesQueuedAt + OUTCOME_DELAY_NANOS - nowNanos).toMillis()));
		}
		return Duration.ofMillis(this.runs.millisUntilNextDeadline(nowNanos, wait));
	}

	private boolean changedSinceRound() {
		Object token = this.roundToken;
		return token != null && !token.equals(changeToken());
	}

	private Object changeToken() {
		try {
			return this.store.changeToken();
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private void wakeUp() {
		BackgroundLoop polling = this.loop;
		if (polling != null) {
			polling.wakeUp();
		}
	}

	/** Jobs held and not done: running (handler not returned) or waiting for a slot. */
	private int held() {
		return this.slots.held();
	}

	/** Most jobs held at once: the slots plus the claim-ahead bound. */
	private int capacity() {
		return this.settings.concurrency() + this.settings.claimAhead();
	}

	/**
	 * Whether the worker is low on jobs and claims: fewer held than its slots plus half
	 * the claim-ahead bound, so a claim brings at least half the bound and the buffer
	 * never runs dry while a busy worker claims. Without claim-ahead, or with handlers of
	 * types that are not claimed ahead: a free slot and nothing waiting, so each claim
	 * offers those types a slot and a flood of other jobs cannot keep them out.
	 */
	private boolean needsJobs() {
		return held() < this.settings.concurrency() + this.lowWaterAhead;
	}

	private int lowWaterAhead() {
		return this.handlers.all().stream().allMatch(ClaimPlanner::claimedAhead) ? (this.settings.claimAhead() + 1) / 2
				: 0;
	}

	private int claimAndDispatch(Instant now) {
		this.lowWaterAhead = lowWaterAhead();
		this.outcomesQueued.set(false);
		drainFinished();
		this.lastClaimFull = false;
		int freeNow = this.slots.freeNow();
		int room = freeNow + this.settings.claimAhead();
		if (room <= 0) {
			writeOutcomes(now);
			return 0;
		}
		ClaimRequest request = ClaimPlanner.plan(workerId(), room, freeNow, this.handlers.all(),
				this.runs.busyByType(this.unwritten), now.plus(this.settings.lease()), this.claims++);
		if (request.isEmpty()) {
			writeOutcomes(now);
			return 0;
		}
		CompleteAndClaim result = this.store.completeAndClaim(completionsOf(this.unwritten), workerId(), request, now);
		recordWritten(result.applied());
		List<ClaimedJob> jobs = result.claimed();
		this.listener.claimed(jobs.size());
		this.lastClaimFull = jobs.size() == room;
		List<JobRun> startNow = new ArrayList<>();
		for (ClaimedJob job : jobs) {
			HandlerDefinition handler = this.handlers.find(job.type()).orElseThrow();
			JobRun run = new JobRun(job, handler, now, this.store, workerId(), this.clock, this.ticker, this.settings,
					this.newJobs);
			this.runs.add(run);
			if (ClaimPlanner.claimedAhead(handler)) {
				this.slots.addWaiting(run);
			}
			else {
				// Never claimed ahead (see ClaimPlanner): claimed only into a free
				// slot, it starts at once.
				startNow.add(run);
			}
		}
		for (JobRun run : startNow) {
			this.slots.takeSlot();
			dispatch(run);
		}
		startWaiting();
		return jobs.size();
	}

	/**
	 * Starts jobs waiting in the buffer, highest priority first, while slots are free and
	 * the worker claims. Runs on the polling thread after a claim and on a run's thread
	 * as it ends; on one thread it does not recurse (a direct executor runs the job
	 * inside {@link #dispatch}).
	 */
	private void startWaiting() {
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
	private void settleWaiting() {
		for (JobRun run : this.slots.removeWaiting((waiting) -> waiting.cancelRequested || waiting.leaseLost)) {
			queueOutcome(run, run.cancelRequested ? Completion.cancelled(run.job)
					: Completion.handedBack(run.job, run.claimedAt));
		}
	}

	/**
	 * At shutdown: hands back every job waiting for a slot, pending again at its own due
	 * time with its attempt not counted; written with the round's outcomes.
	 */
	private void handBackWaiting() {
		for (JobRun run : this.slots.drainWaiting()) {
			queueOutcome(run, Completion.handedBackUnstarted(run.job,
					"claimed ahead by worker " + workerId() + ", which stopped before the job started"));
		}
	}

	/** An outcome for a run that never went to the executor. */
	private void queueOutcome(JobRun run, Completion completion) {
		run.finish(completion);
		this.finished.add(run);
		outcomeQueued();
	}

	private void outcomeQueued() {
		if (this.outcomesQueued.compareAndSet(false, true)) {
			this.outcomesQueuedAt = this.ticker.nanos();
			wakeUp();
		}
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
				completion = run.execute(this.interceptor, this.outcomes);
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
		else if (!run.handedBack && !(this.stopped && !this.runs.holds(run))) {
			// Not cut off at shutdown (the worker wrote its outcome), nor written by it.
			this.finished.add(run);
			outcomeQueued();
		}
		JobRun next = this.slots.endRun(passSlot);
		if (next != null) {
			next.dispatch(this.ticker.nanos(), this.clock.instant());
		}
		if (abandoned || needsJobs()) {
			wakeUp();
		}
		return next;
	}

	private void drainFinished() {
		for (JobRun run; (run = this.finished.poll()) != null;) {
			this.unwritten.add(run);
		}
	}

	private void writeOutcomes(Instant now) {
		// Cleared before the drain: an outcome queued after it wakes the loop again.
		this.outcomesQueued.set(false);
		drainFinished();
		if (this.unwritten.isEmpty()) {
			return;
		}
		recordWritten(this.store.complete(completionsOf(this.unwritten), workerId(), now));
	}

	private static List<Completion> completionsOf(List<JobRun> runs) {
		List<Completion> completions = new ArrayList<>(runs.size());
		for (JobRun run : runs) {
			completions.add(run.completion);
		}
		return completions;
	}

	/**
	 * Releases the slots of the unwritten runs whose outcomes were just written and
	 * reports them.
	 */
	private void recordWritten(boolean[] applied) {
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
	 * The end of a stop, with the polling loop stopped: cuts off the runs still going,
	 * then writes, in one transaction, the outcomes of every run that ended (queued or
	 * not yet) and those of the runs cut off. Which of the two a run gets is decided once
	 * per run ({@link JobRun#cutOff()}), so no run ending meanwhile is left out or
	 * written twice.
	 */
	private int cutOffUnfinished() {
		Instant now = this.clock.instant();
		List<RunningJobs.CutOffRun> cutOff = this.runs.cutOffUnfinished(now);
		drainFinished();
		for (JobRun run : this.runs.ended()) {
			if (!this.unwritten.contains(run)) {
				this.unwritten.add(run);
			}
		}
		List<Completion> completions = completionsOf(this.unwritten);
		int ended = completions.size();
		for (RunningJobs.CutOffRun run : cutOff) {
			completions.add(run.completion());
		}
		long failed = cutOff.stream().filter(RunningJobs.CutOffRun::failed).count();
		try {
			boolean[] applied = this.store.complete(completions, workerId(), now);
			recordWritten(Arrays.copyOf(applied, ended));
			logger.info("Job worker {} stopped; {} unfinished job(s) handed back, {} failed as not repeatable",
					workerId(), cutOff.size() - failed, failed);
		}
		catch (RuntimeException ex) {
			logger.warn("Job worker {} stopped, but could not write the outcomes of {} finished and {} unfinished "
					+ "job(s): {}. Their leases will expire: repeatable ones run again, the others fail with "
					+ "LEASE_EXPIRED:NOT_REPEATABLE.", workerId(), ended, cutOff.size(), ex.toString());
		}
		for (RunningJobs.CutOffRun run : cutOff) {
			this.runs.release(run.run());
		}
		return cutOff.size();
	}

	private static void sleepQuietly(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
