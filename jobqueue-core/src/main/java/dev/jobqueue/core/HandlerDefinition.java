package dev.jobqueue.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How one job type is handled in this process.
 *
 * @param type the job type
 * @param invoker calls the handler
 * @param maxAttempts attempts for jobs enqueued here without their own; {@code 0} for the
 * default
 * @param timeout longest a run may take, or {@code null}
 * @param concurrency most runs at once in this process; {@code 0} for no limit
 * @param repeatable whether a job may run again after its worker died mid-run
 * @param source where the handler is declared, for messages (bean and method)
 * @param globalConcurrency most runs at once across every process on the database;
 * {@code 0} for no limit
 * @param flowControl rate limits, limits per key and order per key ({@code null} for
 * {@link FlowControl#NONE})
 */
public record HandlerDefinition(String type, JobInvoker invoker, int maxAttempts, Duration timeout, int concurrency,
		boolean repeatable, String source, int globalConcurrency, FlowControl flowControl) {

	public HandlerDefinition {
		flowControl = (flowControl != null) ? flowControl : FlowControl.NONE;
		Objects.requireNonNull(type, "'type' must not be null");
		Objects.requireNonNull(invoker, "'invoker' must not be null");
		if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
			throw new IllegalArgumentException("Handler " + source + " declares timeout " + timeout
					+ ": a timeout must be positive (leave it empty for no limit)");
		}
		if (maxAttempts < 0 || concurrency < 0 || globalConcurrency < 0) {
			throw new IllegalArgumentException("Handler " + source
					+ " declares a negative maxAttempts, concurrency or globalConcurrency: use 0 for the default");
		}
	}

	/** A handler without flow control. */
	public HandlerDefinition(String type, JobInvoker invoker, int maxAttempts, Duration timeout, int concurrency,
			boolean repeatable, String source, int globalConcurrency) {
		this(type, invoker, maxAttempts, timeout, concurrency, repeatable, source, globalConcurrency, FlowControl.NONE);
	}

	/** A handler without a global concurrency cap. */
	public HandlerDefinition(String type, JobInvoker invoker, int maxAttempts, Duration timeout, int concurrency,
			boolean repeatable, String source) {
		this(type, invoker, maxAttempts, timeout, concurrency, repeatable, source, 0);
	}

	/** A handler with defaults for everything but type and code. */
	public static HandlerDefinition of(String type, JobInvoker invoker) {
		return new HandlerDefinition(type, invoker, 0, null, 0, true, type);
	}

}
