package dev.jobqueue.core.store;

import java.time.Instant;

/**
 * What to do about a due schedule.
 *
 * @param tick the tick a job is enqueued for, or {@code null} when missed ticks are
 * skipped
 * @param nextRunAt the schedule's next tick, after now
 * @param job the job to enqueue, or {@code null}
 * @param catchUp whether the tick was missed (later than the misfire threshold)
 * @param detail what happened, for the job's event and logs
 */
public record TickDecision(Instant tick, Instant nextRunAt, NewJob job, boolean catchUp, String detail) {
}
