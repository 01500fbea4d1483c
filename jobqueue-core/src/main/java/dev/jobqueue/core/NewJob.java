package dev.jobqueue.core;

import java.time.Instant;

/**
 * A validated job ready to insert.
 *
 * @param type the job type
 * @param payload the payload as JSON
 * @param priority higher runs first
 * @param runAt when it is due
 * @param maxAttempts attempts it may use
 * @param dedupKey the deduplication key, or {@code null}
 * @param traceContext the propagation headers of the trace current at enqueue in their
 * stored form (see {@link TraceHeaders}), or {@code null}
 */
public record NewJob(String type, String payload, int priority, Instant runAt, int maxAttempts, String dedupKey,
		String traceContext) {

}
