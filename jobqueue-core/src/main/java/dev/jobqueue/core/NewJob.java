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
 * @param traceParent the W3C traceparent current at enqueue, or {@code null}
 */
public record NewJob(String type, String payload, int priority, Instant runAt, int maxAttempts, String dedupKey,
		String traceParent) {

}
