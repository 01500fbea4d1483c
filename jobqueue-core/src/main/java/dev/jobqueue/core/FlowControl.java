package dev.jobqueue.core;

/**
 * The limits on when jobs of one type start, checked by the store inside each claim so
 * that they hold across every process on the database. Key limits apply to jobs that
 * carry a key ({@code JobRequest.key}); jobs without a key are held only by the type's
 * {@code rateLimit}.
 *
 * @param rateLimit most starts of the type in any window, or {@code null}
 * @param keyRateLimit most starts of one key of the type in any window, or {@code null}
 * @param keyConcurrency most running jobs of one key of the type; {@code 0} for no limit
 * @param ordered whether one key's jobs start one after another in enqueue order (one at
 * a time, whatever {@code keyConcurrency} says)
 * @param blockOnFailure for {@code ordered}: whether a job that failed for good holds
 * back the later jobs of its key until it is retried or deleted ({@code true}), or lets
 * the next one go ({@code false})
 */
public record FlowControl(RateLimit rateLimit, RateLimit keyRateLimit, int keyConcurrency, boolean ordered,
		boolean blockOnFailure) {

	/** No limits. */
	public static final FlowControl NONE = new FlowControl(null, null, 0, false, true);

	public FlowControl {
		if (keyConcurrency < 0) {
			throw new IllegalArgumentException("keyConcurrency must be 0 (no limit) or more, not " + keyConcurrency);
		}
	}

	/** Whether any limit is set. */
	public boolean limits() {
		return this.rateLimit != null || this.keyRateLimit != null || this.keyConcurrency > 0 || this.ordered;
	}

	/**
	 * Whether starts are counted: a rate limit of the type or of its keys. Such a type is
	 * never claimed ahead, since its starts are logged when it is claimed.
	 */
	public boolean rateLimited() {
		return this.rateLimit != null || this.keyRateLimit != null;
	}

	/** Whether a limit applies per key. */
	public boolean limitsKeys() {
		return this.keyRateLimit != null || this.keyConcurrency > 0 || this.ordered;
	}

	/**
	 * Most running jobs of one key: 1 when ordered, else the key concurrency (0: none).
	 */
	public int runningPerKey() {
		return this.ordered ? 1 : this.keyConcurrency;
	}

}
