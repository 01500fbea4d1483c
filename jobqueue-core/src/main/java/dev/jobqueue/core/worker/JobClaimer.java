package dev.jobqueue.core.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.NewJobs;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.StepTransactions;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.CompleteAndClaim;
import dev.jobqueue.core.store.JobStore;

/**
 * The claim step of a worker's round: decides whether the worker is low on jobs, asks the
 * {@link ClaimPlanner} what to claim, claims it in the transaction that also writes the
 * pending outcomes, and puts the claimed jobs into slots or the claim-ahead buffer. Runs
 * on the polling thread, except {@link #needsJobs()}, which a run's thread asks as it
 * ends.
 */
final class JobClaimer {

	private final JobStore store;

	private final HandlerRegistry handlers;

	private final PayloadCodec codec;

	private final WorkerSettings settings;

	private final Clock clock;

	private final Ticker ticker;

	private final WorkerListener listener;

	private final RunningJobs runs;

	private final SlotBuffer slots;

	private final PendingOutcomes pending;

	private final RunDispatcher dispatcher;

	/**
	 * How many jobs may still wait for a slot when the worker claims again; updated at
	 * each claim, as handlers may be registered after the worker was made.
	 */
	private volatile int lowWaterAhead;

	/** Validates the continuations handlers ask for ({@link JobRun#continueWith}). */
	private volatile NewJobs newJobs;

	/** Runs the durable steps of the runs this worker claims. */
	private volatile DurableSteps steps;

	/** The claim-ahead bound, fixed or following the worker's pace. */
	private final ClaimPace pace;

	private boolean lastClaimFull;

	/**
	 * When a job a rate limit held back in the latest claim may start, or {@code null}.
	 */
	private Instant throttledUntil;

	JobClaimer(JobStore store, HandlerRegistry handlers, PayloadCodec codec, WorkerSettings settings, Clock clock,
			Ticker ticker, WorkerListener listener, RunningJobs runs, SlotBuffer slots, PendingOutcomes pending,
			RunDispatcher dispatcher) {
		this.store = store;
		this.handlers = handlers;
		this.codec = codec;
		this.settings = settings;
		this.clock = clock;
		this.ticker = ticker;
		this.listener = listener;
		this.runs = runs;
		this.slots = slots;
		this.pending = pending;
		this.dispatcher = dispatcher;
		this.newJobs = new NewJobs(codec, handlers,
				new EnqueueLimits(EnqueueLimits.DEFAULT_MAX_ATTEMPTS, settings.maxResultBytes()));
		this.steps = new DurableSteps(codec, StepTransactions.NONE, listener, settings.maxResultBytes());
		this.pace = ClaimPace.of(settings);
		this.lowWaterAhead = lowWaterAhead();
	}

	/** Where transactional steps run their transactions. */
	void stepTransactions(StepTransactions transactions) {
		this.steps = this.steps.withTransactions(transactions);
	}

	/** The limits continuations are checked against. */
	void enqueueLimits(EnqueueLimits limits) {
		this.newJobs = new NewJobs(this.codec, this.handlers, limits);
	}

	/** Jobs held and not done: running (handler not returned) or waiting for a slot. */
	int held() {
		return this.slots.held();
	}

	/** Most jobs held at once: the slots plus the claim-ahead bound. */
	int capacity() {
		return this.settings.concurrency() + claimAhead();
	}

	/** Jobs this worker may hold claimed beyond its free slots, now. */
	int claimAhead() {
		return this.pace.ahead();
	}

	/**
	 * Whether the worker is low on jobs and claims: fewer held than its slots plus half
	 * the claim-ahead bound, so a claim brings at least half the bound and the buffer
	 * never runs dry while a busy worker claims. Without claim-ahead, or with handlers of
	 * types that are not claimed ahead: a free slot and nothing waiting, so each claim
	 * offers those types a slot and a flood of other jobs cannot keep them out.
	 */
	boolean needsJobs() {
		return held() < this.settings.concurrency() + this.lowWaterAhead;
	}

	/** Whether the latest claim got all it asked for: more may be due at once. */
	boolean lastClaimFull() {
		return this.lastClaimFull;
	}

	/**
	 * How long to wait at most, from {@code now}, so that the worker claims as soon as a
	 * rate limit lets a job it held back in the latest claim start: {@code wait} when no
	 * rate limit held one back or the worker has no room for it, {@code 0} when that
	 * moment has already passed (the claim outlasted the window: waiting for the next
	 * poll would leave the limit unused for a whole poll interval).
	 */
	long millisUntilThrottleEnds(Instant now, long wait) {
		Instant until = this.throttledUntil;
		if (until == null || !needsJobs()) {
			return wait;
		}
		if (!until.isAfter(now)) {
			return 0;
		}
		// Rounded up: waking a moment early would find the window still full.
		long millis = (Duration.between(now, until).toNanos() + 999_999) / 1_000_000;
		return Math.min(wait, millis);
	}

	private int lowWaterAhead() {
		return this.handlers.all().stream().allMatch(ClaimPlanner::claimedAhead) ? (claimAhead() + 1) / 2 : 0;
	}

	/**
	 * Claims what the planner asks for, writing the pending outcomes in the same
	 * transaction (or alone, when there is nothing to claim), and starts what can start.
	 * @return how many jobs were claimed
	 */
	int claimAndDispatch(Instant now) {
		this.lowWaterAhead = lowWaterAhead();
		List<JobRun> unwritten = this.pending.takeForClaim();
		this.lastClaimFull = false;
		int freeNow = this.slots.freeNow();
		int room = freeNow + claimAhead();
		if (room <= 0) {
			this.pending.write(now);
			return 0;
		}
		String workerId = this.settings.workerId();
		ClaimRequest request = ClaimPlanner.plan(workerId, room, freeNow, this.handlers.all(),
				this.runs.busyByType(unwritten), now.plus(this.settings.lease()));
		if (request.isEmpty()) {
			this.pending.write(now);
			return 0;
		}
		CompleteAndClaim result = this.store.completeAndClaim(this.pending.completions(), workerId, request, now);
		this.pending.recordWritten(result.applied());
		this.throttledUntil = result.throttledUntil();
		List<ClaimedJob> jobs = result.claimed();
		this.pace.claimed(jobs.size(), this.ticker.nanos());
		this.listener.claimed(jobs.size());
		this.lastClaimFull = jobs.size() == room;
		List<JobRun> startNow = new ArrayList<>();
		for (ClaimedJob job : jobs) {
			HandlerDefinition handler = this.handlers.find(job.type()).orElseThrow();
			JobRun run = new JobRun(job, handler, now, this.store, workerId, this.clock, this.ticker, this.settings,
					this.newJobs, this.steps);
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
			this.dispatcher.startNow(run);
		}
		this.dispatcher.startWaiting();
		return jobs.size();
	}

}
