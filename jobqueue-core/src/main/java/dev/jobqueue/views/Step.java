package dev.jobqueue.views;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A durable step a job recorded ({@link dev.jobqueue.JobContext#step}).
 *
 * @param name its name
 * @param result its result as JSON, shortened (its length only when values are hidden),
 * or {@code null} for a step without one
 * @param run the run that recorded it
 * @param attempt the attempt that run counted as
 * @param startedAt when the step began
 * @param recordedAt when its result was recorded
 */
public record Step(String name, @Nullable Text result, int run, int attempt, Instant startedAt, Instant recordedAt) {

}
