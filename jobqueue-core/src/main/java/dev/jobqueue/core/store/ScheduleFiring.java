package dev.jobqueue.core.store;

import java.time.Instant;

import dev.jobqueue.core.schedule.JobScheduler;

/**
 * One schedule handled by a {@link JobScheduler#fireDue()}.
 *
 * @param name the schedule
 * @param tick the tick fired, or {@code null} when missed ticks were skipped
 * @param jobId the job enqueued, or {@code null}
 * @param catchUp whether it was a catch-up for missed ticks
 * @param nextRunAt the schedule's next tick
 */
public record ScheduleFiring(String name, Instant tick, Long jobId, boolean catchUp, Instant nextRunAt) {
}
