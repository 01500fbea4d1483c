package dev.jobqueue.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobSnoozedException;

/**
 * Claims jobs and runs them. All database work of a worker happens on one path, {@link #pollOnce()}, which
 * the worker's own thread calls in a loop; handlers run on the executor.
 *
 * <ol>
 * <li>Outcomes of finished runs are written, all of them in one transaction (when renewal or recovery is due, or
 * the worker does not claim; otherwise they go with the claim below).</li>
 * <li>Runs past their handler's timeout are interrupted; they fail with {@code TIMEOUT:HANDLER}. A cancelled run
 * that is still going after the cancel timeout is recorded as cancelled with a {@code CANCEL_IGNORED} event;
 * a timed-out run that ignores its interrupt gets a {@code TIMEOUT_IGNORED} event. Both are logged.</li>
 * <li>Every third of the lease, the leases of running jobs are renewed in one statement, which also tells of
 * cancellations requested by other processes and of runs whose lease was lost.</li>
 * <li>Expired leases of dead workers are taken back.</li>
 * <li>Up to the number of free slots, due jobs of the types handled here are claimed and handed to the
 * executor. Outcomes not written yet are written in the same transaction, and their slots count as free: a busy
 * worker commits once per round, not twice.</li>
 * </ol>
 * The loop sleeps until the poll interval passes or it is woken: by an enqueue in this process, by a run that
 * finished, or by a change of the store's change token (a write by another process, such as an enqueue), which
 * it checks every {@value #CHANGE_CHECK_MILLIS} ms. After a full batch it polls again at once.
 */
public final class JobWorker implements QueueSignals {

	private static final Logger logger = LoggerFactory.getLogger(JobWorker.class);

	private static final int RECOVERY_BATCH = 500;

	/** How often a waiting worker looks at the store's change token (see {@link JobStore#changeToken()}). */
	static final long CHANGE_CHECK_MILLIS = 50;

	private final JobStore store;

	private final HandlerRegistry handlers;

	private final PayloadCodec codec;

	private final ErrorClassifier classifier;

	private final RetryPolicy retryPolicy;

	private final Clock clock;

	private final WorkerSettings settings;

	private final WorkerInfo info;

	private final ExecutorService executor;

	private final WorkerListener listener;

	private final RunInterceptor interceptor;

	private final Map<Long, Run> running = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> runningByType = new ConcurrentHashMap<>();

	private final ConcurrentLinkedQueue<Run> finished = new ConcurrentLinkedQueue<>();

	/** Finished runs whose outcome could not be written yet; owned by the polling thread. */
	private final List<Run> unwritten = new ArrayList<>();

	private final ReentrantLock signalLock = new ReentrantLock();

	private final Condition signal = this.signalLock.newCondition();

	private boolean signalled;

	private volatile boolean claiming = true;

	private volatile boolean stopped;

	private volatile Thread loopThread;

	private Instant nextRenewal = Instant.MIN;

	private Instant nextRecovery = Instant.MIN;

	private boolean lastClaimFull;

	private int consecutiveFailures;

	private final java.util.concurrent.atomic.AtomicLong loopFailures = new java.util.concurrent.atomic.AtomicLong();

	public JobWorker(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ErrorClassifier classifier,
			RetryPolicy retryPolicy, Clock clock, WorkerSettings settings, ExecutorService executor,
			WorkerListener listener, RunInterceptor interceptor) {
		this.store = Objects.requireNonNull(store, "'store' must not be null");
		this.handlers = Objects.requireNonNull(handlers, "'handlers' must not be null");
		this.codec = Objects.requireNonNull(codec, "'codec' must not be null");
		this.classifier = Objects.requireNonNull(classifier, "'classifier' must not be null");
		this.retryPolicy = Objects.requireNonNull(retryPolicy, "'retryPolicy' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		this.settings = Objects.requireNonNull(settings, "'settings' must not be null");
		this.executor = Objects.requireNonNull(executor, "'executor' must not be null");
		this.listener = (listener != null) ? listener : WorkerListener.NONE;
		this.interceptor = (interceptor != null) ? interceptor : RunInterceptor.NONE;
		this.info = new WorkerInfo(settings.workerId(), WorkerIds.hostName(), ProcessHandle.current().pid(),
				handlers.types(), settings.concurrency());
	}

	public String workerId() {
		return this.settings.workerId();
	}

	/** Jobs running in this worker now. */
	public int runningCount() {
		return this.running.size();
	}

	/** How often the polling loop failed (the database could not be used) since start. */
	public long loopFailures() {
		return this.loopFailures.get();
	}

	/** Starts the polling thread. */
	public synchronized void start() {
		if (this.loopThread != null) {
			return;
		}
		this.store.registerWorker(this.info, this.clock.instant());
		Thread thread = new Thread(this::loop, "jobqueue-poller");
		thread.setDaemon(true);
		this.loopThread = thread;
		thread.start();
		logger.info("Job worker {} started: {} slots, types {}", workerId(), this.settings.concurrency(),
				this.handlers.types());
	}

	public boolean isRunning() {
		return this.loopThread != null && !this.stopped;
	}

	/**
	 * Stops claiming, waits up to the shutdown timeout for running jobs to finish, then hands back the ones
	 * that did not (pending again, attempt not counted) and interrupts them.
	 * @return how many jobs were handed back
	 */
	public int stop() {
		this.claiming = false;
		long deadline = System.nanoTime() + this.settings.shutdownTimeout().toNanos();
		while (!this.running.isEmpty() && System.nanoTime() < deadline && this.loopThread != null) {
			wakeUp();
			sleepQuietly(Math.min(20, Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
		}
		this.stopped = true;
		Thread thread = this.loopThread;
		if (thread != null) {
			wakeUp();
			joinQuietly(thread);
		}
		int handedBack;
		synchronized (this) {
			handedBack = handBackUnfinished();
		}
		this.executor.shutdownNow();
		try {
			this.store.unregisterWorker(workerId());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not unregister worker {}: {}", workerId(), ex.getMessage());
		}
		logger.info("Job worker {} stopped; {} unfinished job(s) handed back", workerId(), handedBack);
		return handedBack;
	}

	@Override
	public void jobsEnqueued() {
		wakeUp();
	}

	@Override
	public void cancelRequested(long jobId) {
		Run run = this.running.get(jobId);
		if (run != null) {
			run.markCancelRequested();
			run.interrupt();
		}
	}

	/**
	 * One round of the worker's database work; see the class comment. Synchronous: with a direct executor the
	 * claimed jobs run, and their outcomes are written, before it returns.
	 * @return how many jobs were claimed
	 */
	public synchronized int pollOnce() {
		return poll(true);
	}

	/**
	 * @param writeLateOutcomes whether outcomes of runs that finished during the round are written before it
	 * returns; the polling loop leaves them to its next round, which writes them together with its claim
	 */
	private synchronized int poll(boolean writeLateOutcomes) {
		Instant now = this.clock.instant();
		boolean claim = this.claiming && !this.stopped;
		if (!claim || !now.isBefore(this.nextRenewal) || !now.isBefore(this.nextRecovery)) {
			// Before recovery looks at expired leases, outcomes known here are in the database.
			writeOutcomes(now);
		}
		enforceTimeouts(now);
		if (!now.isBefore(this.nextRenewal)) {
			renewLeases(now);
		}
		if (!now.isBefore(this.nextRecovery)) {
			this.nextRecovery = now.plus(recoveryInterval());
			this.store.recoverExpiredLeases(now, RECOVERY_BATCH);
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

	private void loop() {
		while (!this.stopped) {
			try {
				// Taken before the round: a write by another process during the round wakes the next wait.
				Object token = changeToken();
				int claimed = poll(false);
				this.consecutiveFailures = 0;
				if (claimed > 0 && this.lastClaimFull && freeSlots() > 0) {
					continue;
				}
				awaitSignalOrChange(nextWait(), token);
			}
			catch (Throwable ex) {
				this.consecutiveFailures++;
				this.loopFailures.incrementAndGet();
				long backoff = Math.min(this.settings.pollInterval().toMillis() * this.consecutiveFailures, 30_000);
				if (this.consecutiveFailures == 1 || this.consecutiveFailures % 20 == 0) {
					logger.error("Job worker {} could not reach the queue database (failure {} in a row, next try in "
							+ "{} ms); running jobs keep running and their outcomes are kept until it can be written: {}",
							workerId(), this.consecutiveFailures, backoff, ex.toString(), ex);
				}
				awaitSignal(backoff);
			}
		}
	}

	private long nextWait() {
		Instant now = this.clock.instant();
		long wait = this.settings.pollInterval().toMillis();
		wait = Math.min(wait, Math.max(1, Duration.between(now, this.nextRenewal).toMillis()));
		for (Run run : this.running.values()) {
			if (run.deadline != null && !run.timedOut) {
				wait = Math.min(wait, Math.max(1, Duration.between(now, run.deadline).toMillis() + 1));
			}
			Instant cancelDeadline = run.cancelDeadline();
			if (cancelDeadline != null && !run.abandoned) {
				wait = Math.min(wait, Math.max(1, Duration.between(now, cancelDeadline).toMillis() + 1));
			}
		}
		return wait;
	}

	private void wakeUp() {
		this.signalLock.lock();
		try {
			this.signalled = true;
			this.signal.signal();
		}
		finally {
			this.signalLock.unlock();
		}
	}

	private Object changeToken() {
		try {
			return this.store.changeToken();
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/** Waits like {@link #awaitSignal}, and also returns early once the store's change token differs. */
	private void awaitSignalOrChange(long millis, Object token) {
		if (token == null || millis <= CHANGE_CHECK_MILLIS) {
			awaitSignal(millis);
			return;
		}
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
		while (!this.stopped) {
			long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
			if (left <= 0 || awaitSignal(Math.min(left, CHANGE_CHECK_MILLIS)) || !token.equals(changeToken())) {
				return;
			}
		}
	}

	/** @return whether a signal (or stop) ended the wait */
	private boolean awaitSignal(long millis) {
		this.signalLock.lock();
		try {
			if (!this.signalled && !this.stopped) {
				this.signal.await(millis, TimeUnit.MILLISECONDS);
			}
			boolean woken = this.signalled || this.stopped;
			this.signalled = false;
			return woken;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.stopped = true;
			return true;
		}
		finally {
			this.signalLock.unlock();
		}
	}

	private int freeSlots() {
		return this.settings.concurrency() - this.running.size();
	}

	private int claimAndDispatch(Instant now) {
		drainFinished();
		// Runs whose outcome is written in the claim's transaction give their slots back.
		int limit = freeSlots() + this.unwritten.size();
		Map<String, Integer> leaving = new HashMap<>();
		for (Run run : this.unwritten) {
			leaving.merge(run.job.type(), 1, Integer::sum);
		}
		this.lastClaimFull = false;
		if (limit <= 0) {
			return 0;
		}
		Set<String> unlimited = new HashSet<>();
		Map<String, Integer> limited = new HashMap<>();
		Map<String, Integer> globalLimits = new HashMap<>();
		Set<String> notRepeatable = new HashSet<>();
		for (HandlerDefinition handler : this.handlers.all()) {
			if (!handler.repeatable()) {
				notRepeatable.add(handler.type());
			}
			if (handler.concurrency() == 0 && handler.globalConcurrency() == 0) {
				unlimited.add(handler.type());
				continue;
			}
			int free = (handler.concurrency() > 0)
					? handler.concurrency() - runningOf(handler.type()).get() + leaving.getOrDefault(handler.type(), 0)
					: limit;
			if (free > 0) {
				limited.put(handler.type(), Math.min(free, limit));
				if (handler.globalConcurrency() > 0) {
					globalLimits.put(handler.type(), handler.globalConcurrency());
				}
			}
		}
		ClaimRequest request = new ClaimRequest(workerId(), limit, unlimited, limited, notRepeatable,
				now.plus(this.settings.lease()), globalLimits);
		if (request.isEmpty()) {
			writeOutcomes(now);
			return 0;
		}
		List<Completion> completions = new ArrayList<>(this.unwritten.size());
		for (Run run : this.unwritten) {
			completions.add(run.completion);
		}
		CompleteAndClaim result = this.store.completeAndClaim(completions, workerId(), request, now);
		recordWritten(result.applied());
		List<ClaimedJob> jobs = result.claimed();
		this.listener.claimed(jobs.size());
		this.lastClaimFull = jobs.size() == limit;
		for (ClaimedJob job : jobs) {
			dispatch(job, now);
		}
		return jobs.size();
	}

	private AtomicInteger runningOf(String type) {
		return this.runningByType.computeIfAbsent(type, (key) -> new AtomicInteger());
	}

	private void dispatch(ClaimedJob job, Instant now) {
		HandlerDefinition handler = this.handlers.find(job.type()).orElseThrow();
		Instant deadline = (handler.timeout() != null) ? now.plus(handler.timeout()) : null;
		Run run = new Run(job, handler, now, deadline);
		this.running.put(job.id(), run);
		runningOf(job.type()).incrementAndGet();
		try {
			this.executor.execute(() -> execute(run));
		}
		catch (RejectedExecutionException ex) {
			run.finish(Completion.handedBack(job, now));
		}
	}

	private void execute(Run run) {
		run.startNanos = System.nanoTime();
		run.bindThread();
		Completion completion;
		try {
			completion = this.interceptor.around(run.job, () -> invokeHandler(run));
		}
		catch (Throwable failure) {
			completion = outcomeOfFailure(run, failure);
		}
		finally {
			run.unbindThread();
		}
		run.finish(completion);
	}

	private Completion invokeHandler(Run run) {
		if (run.cancelRequested) {
			return Completion.cancelled(run.job);
		}
		try {
			return outcomeOfReturn(run, run.handler.invoker().invoke(run.job.payload(), run));
		}
		catch (Throwable failure) {
			return outcomeOfFailure(run, failure);
		}
	}

	private Completion outcomeOfReturn(Run run, Object result) {
		if (run.cancelRequested) {
			return Completion.cancelled(run.job);
		}
		if (run.timedOut) {
			return failure(run, timeoutError(run));
		}
		try {
			return Completion.succeeded(run.job,
					(result != null) ? JsonText.escapeLoneSurrogates(this.codec.toJson(result)) : null);
		}
		catch (RuntimeException ex) {
			return failure(run, new ErrorClassification("INVALID_OUTPUT:RESULT",
					"The handler's return value cannot be written as JSON: " + ex.getMessage(), false));
		}
	}

	private Completion outcomeOfFailure(Run run, Throwable failure) {
		if (run.cancelRequested) {
			return Completion.cancelled(run.job);
		}
		if (run.timedOut) {
			return failure(run, timeoutError(run));
		}
		if (failure instanceof JobSnoozedException snooze) {
			if (run.job.snoozes() >= this.settings.maxSnoozes()) {
				return failure(run, new ErrorClassification("SNOOZE:LIMIT_REACHED", "The job snoozed "
						+ run.job.snoozes() + " times, the most jobqueue.worker.max-snoozes allows", false));
			}
			return Completion.snoozed(run.job, this.clock.instant().plus(snooze.getDelay()));
		}
		ErrorClassification error;
		try {
			error = this.classifier.classify(run.job.type(), failure);
		}
		catch (RuntimeException ex) {
			logger.warn("Error classifier failed on {}; recording INTERNAL:CLASSIFIER", failure, ex);
			error = new ErrorClassification("INTERNAL:CLASSIFIER", DefaultErrorClassifier.describe(failure), true);
		}
		if (!(failure instanceof Exception)) {
			logger.error("Job {} ({}) threw {}", run.job.id(), run.job.type(), failure.toString(), failure);
		}
		return failure(run, error);
	}

	private ErrorClassification timeoutError(Run run) {
		return new ErrorClassification("TIMEOUT:HANDLER",
				"The handler ran longer than its timeout of " + run.handler.timeout() + " and was interrupted", true);
	}

	private Completion failure(Run run, ErrorClassification error) {
		ClaimedJob job = run.job;
		if (error.retryable() && job.attempt() < job.maxAttempts()) {
			Instant next = this.clock.instant().plus(this.retryPolicy.backoff(job.attempt()));
			return Completion.retry(job, error.code(), error.detail(), next);
		}
		return Completion.failed(job, error.code(), error.detail());
	}

	private void drainFinished() {
		for (Run run; (run = this.finished.poll()) != null;) {
			this.unwritten.add(run);
		}
	}

	private void writeOutcomes(Instant now) {
		drainFinished();
		if (this.unwritten.isEmpty()) {
			return;
		}
		List<Completion> completions = new ArrayList<>(this.unwritten.size());
		for (Run run : this.unwritten) {
			completions.add(run.completion);
		}
		recordWritten(this.store.complete(completions, workerId(), now));
	}

	/** Releases the slots of the unwritten runs whose outcomes were just written and reports them. */
	private void recordWritten(boolean[] applied) {
		for (int i = 0; i < applied.length; i++) {
			Run run = this.unwritten.get(i);
			release(run);
			Duration queueWait = Duration.between(run.job.runAt(), run.claimedAt);
			Duration execution = Duration.ofNanos(run.endNanos - run.startNanos);
			if (applied[i]) {
				this.listener.finished(run.job, run.completion, queueWait.isNegative() ? Duration.ZERO : queueWait,
						execution);
			}
			else {
				logger.warn("Outcome {} of job {} ({}) run {} was rejected: the run no longer holds the job "
						+ "(its lease expired and the job was recovered, or it was cancelled)", run.completion.kind(),
						run.job.id(), run.job.type(), run.job.run());
				this.listener.staleCompletion(run.job, run.completion);
			}
		}
		this.unwritten.clear();
	}

	private void release(Run run) {
		if (this.running.remove(run.job.id(), run)) {
			runningOf(run.job.type()).decrementAndGet();
		}
	}

	private void enforceTimeouts(Instant now) {
		for (Run run : this.running.values()) {
			if (run.abandoned) {
				continue;
			}
			Instant cancelDeadline = run.cancelDeadline();
			if (cancelDeadline != null && !now.isBefore(cancelDeadline) && run.abandon()) {
				recordCancelIgnored(run, now);
				continue;
			}
			if (run.deadline == null || run.completion != null || now.isBefore(run.deadline)) {
				continue;
			}
			if (!run.timedOut) {
				run.timedOut = true;
				run.interrupt();
			}
			else if (!run.reportedStuck && !now.isBefore(run.deadline.plus(run.handler.timeout()))) {
				run.reportedStuck = true;
				logger.warn("Job {} ({}) ignores interrupts: it is still running {} after its timeout of {}. Its "
						+ "worker slot stays taken until the handler returns; make the handler check "
						+ "Thread.interrupted() or JobContext.isCancelled().", run.job.id(), run.job.type(),
						Duration.between(run.deadline, now), run.handler.timeout());
				this.listener.interruptIgnored(run.job, "TIMEOUT");
				recordEventQuietly(run, "TIMEOUT_IGNORED", "still running " + Duration.between(run.deadline, now)
						+ " after its timeout of " + run.handler.timeout() + " and interrupt", now);
			}
		}
	}

	/**
	 * A cancelled run did not stop within the cancel timeout: the job is recorded as cancelled now (the run's
	 * own outcome will never be written), with an event and a log line saying the handler still runs.
	 */
	private void recordCancelIgnored(Run run, Instant now) {
		Duration since = Duration.between(run.cancelRequestedAt, now);
		logger.warn("Job {} ({}) ignores its cancellation: still running {} after it was interrupted. It is recorded "
				+ "as cancelled; its worker slot stays taken until the handler returns. Make the handler check "
				+ "Thread.interrupted() or JobContext.isCancelled().", run.job.id(), run.job.type(), since);
		this.listener.interruptIgnored(run.job, "CANCEL");
		recordEventQuietly(run, "CANCEL_IGNORED", "handler still running " + since + " after the interrupt; "
				+ "cancelled without its cooperation (jobqueue.worker.cancel-timeout=" + this.settings.cancelTimeout()
				+ ")", now);
		try {
			this.store.complete(List.of(Completion.cancelled(run.job)), workerId(), now);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not record job {} as cancelled: {}. Its lease will expire and recovery will record it.",
					run.job.id(), ex.toString());
		}
	}

	private void recordEventQuietly(Run run, String event, String detail, Instant now) {
		try {
			this.store.recordEvent(run.job.id(), event, workerId(), detail, now);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not record event {} of job {}: {}", event, run.job.id(), ex.toString());
		}
	}

	private void renewLeases(Instant now) {
		this.nextRenewal = now.plus(this.settings.renewalInterval());
		this.store.registerWorker(this.info, now);
		if (this.running.isEmpty()) {
			return;
		}
		// Runs whose outcome is not written yet still hold their job: renew them too.
		List<RunningJobRef> refs = new ArrayList<>(this.running.size());
		for (Run run : this.running.values()) {
			if (!run.abandoned) {
				refs.add(new RunningJobRef(run.job.id(), run.job.run()));
			}
		}
		if (refs.isEmpty()) {
			return;
		}
		LeaseRenewal renewal = this.store.renewLeases(workerId(), refs, now, now.plus(this.settings.lease()));
		for (Long id : renewal.cancelRequested()) {
			cancelRequested(id);
		}
		for (Long id : renewal.lost()) {
			Run run = this.running.get(id);
			if (run != null && run.completion == null) {
				logger.warn("Job {} ({}) lost its lease while running here (its lease expired, likely after a long "
						+ "pause of this process); interrupting the run", id, run.job.type());
				run.leaseLost = true;
				run.interrupt();
			}
		}
	}

	private int handBackUnfinished() {
		try {
			writeOutcomes(this.clock.instant());
		}
		catch (RuntimeException ex) {
			logger.warn("Could not write the outcomes of finished jobs at shutdown: {}. Their leases will "
					+ "expire and they will run again.", ex.toString());
		}
		List<Run> unfinished = new ArrayList<>();
		for (Run run : this.running.values()) {
			if (run.abandoned) {
				run.interrupt();
			}
			else if (run.completion == null && !this.unwritten.contains(run)) {
				unfinished.add(run);
			}
		}
		if (unfinished.isEmpty()) {
			return 0;
		}
		Instant now = this.clock.instant();
		List<Completion> handBacks = new ArrayList<>();
		for (Run run : unfinished) {
			handBacks.add(Completion.handedBack(run.job, now));
		}
		try {
			this.store.complete(handBacks, workerId(), now);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not hand back {} unfinished job(s) at shutdown: {}. Their leases will expire "
					+ "and they will run again.", unfinished.size(), ex.toString());
		}
		for (Run run : unfinished) {
			run.handedBack = true;
			run.interrupt();
			release(run);
		}
		return unfinished.size();
	}

	private static void sleepQuietly(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void joinQuietly(Thread thread) {
		try {
			thread.join(10_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** One run of a claimed job: the handler's view of it and the worker's bookkeeping. */
	private final class Run implements JobContext {

		final ClaimedJob job;

		final HandlerDefinition handler;

		final Instant claimedAt;

		final Instant deadline;

		volatile Thread thread;

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

		Instant lastHeartbeat;

		Run(ClaimedJob job, HandlerDefinition handler, Instant claimedAt, Instant deadline) {
			this.job = job;
			this.handler = handler;
			this.claimedAt = claimedAt;
			this.deadline = deadline;
		}

		synchronized void bindThread() {
			this.thread = Thread.currentThread();
		}

		/** Unbinds, then clears any interrupt aimed at this run so it cannot leak into the thread's next task. */
		void unbindThread() {
			synchronized (this) {
				this.thread = null;
			}
			Thread.interrupted();
		}

		synchronized void interrupt() {
			if (this.thread != null) {
				this.thread.interrupt();
			}
		}

		void markCancelRequested() {
			if (!this.cancelRequested) {
				this.cancelRequestedAt = JobWorker.this.clock.instant();
				this.cancelRequested = true;
			}
		}

		/** When a cancelled run that is still going is recorded as cancelled without it, or {@code null}. */
		Instant cancelDeadline() {
			Instant requested = this.cancelRequestedAt;
			return (requested != null && this.completion == null)
					? requested.plus(JobWorker.this.settings.cancelTimeout()) : null;
		}

		/** @return whether the run was still going and is now abandoned (only once) */
		synchronized boolean abandon() {
			if (this.abandoned || this.completion != null || this.handedBack) {
				return false;
			}
			this.abandoned = true;
			return true;
		}

		void finish(Completion completion) {
			this.endNanos = System.nanoTime();
			if (this.startNanos == 0) {
				this.startNanos = this.endNanos;
			}
			synchronized (this) {
				this.completion = completion;
				if (this.abandoned) {
					logger.info("Job {} ({}), cancelled while it ignored its interrupt, has now returned: its worker "
							+ "slot is free again", this.job.id(), this.job.type());
					release(this);
					wakeUp();
					return;
				}
			}
			if (this.handedBack || JobWorker.this.stopped && !JobWorker.this.running.containsKey(this.job.id())) {
				return;
			}
			JobWorker.this.finished.add(this);
			wakeUp();
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
			Instant now = JobWorker.this.clock.instant();
			// A handler may call this in a tight loop: write at most every tenth of the lease.
			if (this.lastHeartbeat != null
					&& now.isBefore(this.lastHeartbeat.plus(JobWorker.this.settings.lease().dividedBy(10)))) {
				return true;
			}
			this.lastHeartbeat = now;
			LeaseRenewal renewal;
			try {
				renewal = JobWorker.this.store.renewLeases(workerId(),
						List.of(new RunningJobRef(this.job.id(), this.job.run())), now,
						now.plus(JobWorker.this.settings.lease()));
			}
			catch (RuntimeException ex) {
				// The database is briefly unusable: that is no fault of the job. The polling loop renews the
				// lease too and keeps trying, so the handler goes on.
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
		public boolean isCancelled() {
			return this.cancelRequested || this.leaseLost || this.timedOut || this.handedBack;
		}

		@Override
		public void snooze(Duration delay) {
			throw new JobSnoozedException(delay);
		}

	}

}
