package dev.jobqueue.views;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One entry of a job's timeline.
 *
 * @param at when it happened
 * @param event what happened: {@code ENQUEUED}, {@code CLAIMED}, {@code SUCCEEDED},
 * {@code RETRY_SCHEDULED}, ... (names that are never renamed)
 * @param actor the worker, {@code api} or {@code recovery}
 * @param detail a short note ({@link ValuePolicy#HIDDEN_VALUE} when values are hidden),
 * or {@code null}
 */
public record Event(Instant at, String event, @Nullable String actor, @Nullable String detail) {

}
