package dev.jobqueue.core.store;

import java.time.Instant;
import java.util.Comparator;

/**
 * A job this worker has just claimed.
 *
 * @param id the job's id
 * @param type the job type
 * @param payload the payload as JSON
 * @param priority higher runs first
 * @param run the claim number of this job, the fencing token every later write of this
 * run must match
 * @param attempt the attempt this run counts as, starting at 1
 * @param maxAttempts attempts the job may use
 * @param snoozes snoozes so far
 * @param runAt when it was due
 * @param createdAt when it was enqueued
 * @param traceContext the propagation headers of the trace current at enqueue in their
 * stored form (see {@link TraceHeaders}), or {@code null}
 * @param key the job's key ({@code JobRequest.key}), or {@code null}
 */
public record ClaimedJob(long id, String type, String payload, int priority, int run, int attempt, int maxAttempts,
		int snoozes, Instant runAt, Instant createdAt, String traceContext, String key) {

	/** A job without a key. */
	public ClaimedJob(long id, String type, String payload, int priority, int run, int attempt, int maxAttempts,
			int snoozes, Instant runAt, Instant createdAt, String traceContext) {
		this(id, type, payload, priority, run, attempt, maxAttempts, snoozes, runAt, createdAt, traceContext, null);
	}

	/**
	 * The order a claim's jobs are handed to the worker in: higher priority first, then
	 * earlier due time, then lower id. Stores sort what a claim statement returned by it,
	 * since {@code RETURNING} keeps no order. (Which jobs a claim takes is decided in
	 * rounds across keys first; see {@code dev.jobqueue.jdbc.FlowClaims}.)
	 */
	public static final Comparator<ClaimedJob> CLAIM_ORDER = Comparator.comparingInt(ClaimedJob::priority)
		.reversed()
		.thenComparing(ClaimedJob::runAt)
		.thenComparingLong(ClaimedJob::id);

}
