package dev.jobqueue.core.worker;

import java.util.concurrent.TimeUnit;

/**
 * The claim-ahead bound a worker claims with. Fixed when set; when left to its default it
 * follows the worker's pace: enough to hold about {@value #HOLD_MILLIS} ms of work at the
 * rate the worker claimed jobs lately, never below the default and never above
 * {@link WorkerSettings#MAX_CLAIM_AHEAD}. Short jobs then go to the database in batches
 * of hundreds (each claim round costs a transaction whatever its size: measured on
 * PostgreSQL, a burn-down of no-op jobs ran 1.4-1.5 times as fast as with 128), while a
 * process with long jobs keeps the default and leaves the rest to idle processes. The
 * rate is measured over windows of at least {@value #WINDOW_MILLIS} ms, closed at a
 * claim, and smoothed (each window weighs half); a window over four times that long spans
 * an idle spell or a slow drain, and its rate alone counts, so after a pause, or when
 * jobs turn slow, the bound falls back towards the default at the next claim.
 */
final class ClaimPace {

	/** How much work a worker holds claimed ahead when the bound follows its pace. */
	static final long HOLD_MILLIS = 250;

	static final long WINDOW_MILLIS = 250;

	private static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(WINDOW_MILLIS);

	/**
	 * A window this many times longer than the shortest spans an idle spell (or a slow
	 * drain): the pace before it no longer counts.
	 */
	private static final int STALE_AFTER_WINDOWS = 4;

	private final int floor;

	private final int ceiling;

	/** Owned by the polling thread. */
	private long windowStart;

	private boolean started;

	private long claimedInWindow;

	private double perSecond;

	/** Read by runs' threads too (through the worker's low-water mark). */
	private volatile int ahead;

	private ClaimPace(int floor, int ceiling) {
		this.floor = floor;
		this.ceiling = ceiling;
		this.ahead = floor;
	}

	/**
	 * The bound the settings ask for: fixed, or following the pace from their default.
	 */
	static ClaimPace of(WorkerSettings settings) {
		return settings.claimAheadFollowsPace() ? new ClaimPace(settings.claimAhead(), WorkerSettings.MAX_CLAIM_AHEAD)
				: new ClaimPace(settings.claimAhead(), settings.claimAhead());
	}

	/** Jobs the worker may hold claimed beyond its free slots, now. */
	int ahead() {
		return this.ahead;
	}

	/**
	 * Counts a claim of {@code jobs} at {@code nowNanos} (a
	 * {@link dev.jobqueue.core.Ticker} reading) and, when a window closes, sizes the
	 * bound again.
	 */
	void claimed(int jobs, long nowNanos) {
		if (this.floor == this.ceiling) {
			return;
		}
		if (!this.started) {
			// Nothing says how long the first claim's jobs took to come: the pace starts
			// here.
			this.started = true;
			this.windowStart = nowNanos;
			return;
		}
		this.claimedInWindow += jobs;
		long elapsed = nowNanos - this.windowStart;
		if (elapsed < WINDOW_NANOS) {
			return;
		}
		double rate = this.claimedInWindow * 1e9 / elapsed;
		boolean stale = this.perSecond == 0 || elapsed > STALE_AFTER_WINDOWS * WINDOW_NANOS;
		this.perSecond = stale ? rate : (this.perSecond + rate) / 2;
		this.windowStart = nowNanos;
		this.claimedInWindow = 0;
		long held = Math.round(this.perSecond * HOLD_MILLIS / 1000);
		this.ahead = (int) Math.max(this.floor, Math.min(this.ceiling, held));
	}

}
