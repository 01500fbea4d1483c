package dev.jobqueue.core.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.BackgroundLoop;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.StepTransactions;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.WorkerIds;
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
 * {@value #CHANGE_CHECK_MILLIS} ms. After a full batch it polls again at once; when a
 * rate limit held jobs back, it polls again when the limit's window lets the next one
 * start ({@link dev.jobqueue.core.store.CompleteAndClaim#throttledUntil()}).
 *
 * <p>
 * This class keeps the order of a round and of shutdown (write outcomes, time out, renew,
 * recover, claim; stop, drain, cut off), the one thing a reader must check; each step is
 * one class: {@link PendingOutcomes}, {@link RunningJobs}, {@link LeaseUpkeep},
 * {@link JobClaimer} (with {@link ClaimPlanner}), {@link RunDispatcher} (with
 * {@link SlotBuffer}), and for one run {@link JobRun} and {@link OutcomeMapper}.
 */
public final class JobWorker implements QueueSignals {

	private static final Logger logger = LoggerFactory.getLogger(JobWorker.class);

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

	private final JobStore store;

	private final HandlerRegistry handlers;

	private final Clock clock;

	private final Ticker ticker;

	private final WorkerSettings settings;

	private final WorkerInfo info;

	private final ExecutorService executor;

	private final RunningJobs runs;

	/** Slots in use and the claim-ahead buffer. */
	private final SlotBuffer slots;

	private final PendingOutcomes pending;

	private final RunDispatcher dispatcher;

	private final JobClaimer claimer;

	private final LeaseUpkeep leases;

	private volatile boolean claiming = true;

	private volatile boolean stopped;

	private volatile BackgroundLoop loop;

	/** The store's change token as the loop's latest round began. */
	private volatile Object roundToken;

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
		Objects.requireNonNull(codec, "'codec' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		this.settings = Objects.requireNonNull(settings, "'settings' must not be null");
		this.executor = Objects.requireNonNull(executor, "'executor' must not be null");
		this.ticker = Objects.requireNonNull(ticker, "'ticker' must not be null");
		WorkerListener guardedListener = GuardedWorkerListener.of(listener);
		OutcomeMapper outcomes = new OutcomeMapper(codec,
				Objects.requireNonNull(classifier, "'classifier' must not be null"),
				Objects.requireNonNull(retryPolicy, "'retryPolicy' must not be null"), settings.maxSnoozes(), ticker,
				settings.maxResultBytes());
		this.slots = new SlotBuffer(settings.concurrency(), () -> this.claiming && !this.stopped);
		this.runs = new RunningJobs(store, settings, guardedListener);
		this.pending = new PendingOutcomes(store, settings.workerId(), this.runs, guardedListener, ticker,
				this::wakeUp);
		HandlerExecution execution = new HandlerExecution((interceptor != null) ? interceptor : RunInterceptor.NONE,
				outcomes, clock);
		this.dispatcher = new RunDispatcher(settings.workerId(), executor, execution, this.slots, this.runs,
				this.pending, clock, ticker, () -> this.stopped, this::needsJobs, this::wakeUp);
		this.claimer = new JobClaimer(store, handlers, codec, settings, clock, ticker, guardedListener, this.runs,
				this.slots, this.pending, this.dispatcher);
		this.info = new WorkerInfo(settings.workerId(), WorkerIds.hostName(), ProcessHandle.current().pid(),
				handlers.types(), settings.concurrency());
		this.leases = new LeaseUpkeep(store, this.info, settings, this.runs, ticker.nanos());
	}

	/**
	 * The limits continuations are checked against: those of enqueue (the default takes
	 * {@link EnqueueLimits#DEFAULT_MAX_ATTEMPTS} attempts and the largest result as the
	 * largest payload).
	 */
	public void setEnqueueLimits(EnqueueLimits limits) {
		this.claimer.enqueueLimits(Objects.requireNonNull(limits, "'limits' must not be null"));
	}

	/**
	 * Where transactional steps ({@link dev.jobqueue.JobContext#transactionalStep}) run
	 * their transactions; by default they are refused.
	 */
	public void setStepTransactions(StepTransactions transactions) {
		this.claimer.stepTransactions(Objects.requireNonNull(transactions, "'transactions' must not be null"));
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
		return this.claimer.claimAhead();
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
		boolean renew = this.leases.renewalDue(nowNanos);
		boolean recover = this.leases.recoveryDue(nowNanos);
		if (!claiming) {
			this.dispatcher.handBackWaiting();
		}
		boolean outcomesDue = this.pending.due(nowNanos);
		boolean claim = claiming && (needsJobs() || outcomesDue && this.claimer.held() < this.claimer.capacity());
		if (!claim && outcomesDue || !claiming || renew || recover) {
			// Before recovery looks at expired leases, outcomes known here are in the
			// database.
			this.pending.write(now);
		}
		this.runs.enforceTimeouts(nowNanos, now);
		if (renew) {
			this.leases.renew(nowNanos, now);
		}
		this.dispatcher.settleWaiting();
		if (recover) {
			this.leases.recover(nowNanos, now);
		}
		int claimed = claim ? this.claimer.claimAndDispatch(now) : 0;
		if (writeLateOutcomes && this.pending.anyEnded()) {
			this.pending.write(this.clock.instant());
		}
		return claimed;
	}

	/** The loop's step: one round, then how long to wait. */
	private Duration round() {
		// Taken before the round: a write by another process during the round wakes the
		// next wait.
		this.roundToken = changeToken();
		int claimed = poll(false);
		if (claimed > 0 && this.claimer.lastClaimFull() && needsJobs()) {
			return Duration.ZERO;
		}
		long nowNanos = this.ticker.nanos();
		long wait = Math.min(this.settings.pollInterval().toMillis(), this.leases.millisUntilRenewal(nowNanos));
		wait = this.pending.millisUntilDue(nowNanos, wait);
		wait = this.claimer.millisUntilThrottleEnds(this.clock.instant(), wait);
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

	private boolean needsJobs() {
		return this.claimer.needsJobs();
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
		this.pending.writeAtStop(cutOff, now);
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
