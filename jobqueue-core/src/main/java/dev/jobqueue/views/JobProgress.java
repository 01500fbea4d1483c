package dev.jobqueue.views;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * How far a running job says it is ({@link dev.jobqueue.JobContext#progress}).
 *
 * @param done units done
 * @param total units in all, or 0 when the handler does not know
 * @param message what it is doing ({@link ValuePolicy#HIDDEN_VALUE} when values are
 * hidden), or {@code null}
 * @param at when the handler reported it
 */
public record JobProgress(long done, long total, @Nullable String message, Instant at) {

}
