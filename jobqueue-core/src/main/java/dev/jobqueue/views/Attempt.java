package dev.jobqueue.views;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One run of a job.
 *
 * @param run the claim number
 * @param attempt the attempt it counted as
 * @param workerId the worker that ran it
 * @param startedAt claim time
 * @param finishedAt when its outcome was written, or {@code null} while it runs
 * @param outcome SUCCEEDED, FAILED, SNOOZED, CANCELLED, HANDED_BACK or LEASE_EXPIRED;
 * {@code null} while it runs
 * @param errorCode its error code, or {@code null}
 * @param errorDetail its error summary ({@link ValuePolicy#HIDDEN_VALUE} when values are
 * hidden), or {@code null}
 * @param errorTrace the failure's stack trace, bounded ({@link ValuePolicy#HIDDEN_VALUE}
 * when values are hidden), or {@code null}
 */
public record Attempt(int run, int attempt, String workerId, Instant startedAt, @Nullable Instant finishedAt,
		@Nullable String outcome, @Nullable String errorCode, @Nullable String errorDetail,
		@Nullable String errorTrace) {

}
