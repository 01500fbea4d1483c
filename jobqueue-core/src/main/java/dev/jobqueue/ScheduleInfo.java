package dev.jobqueue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A recurring schedule as stored in the database, for operators and the actuator
 * endpoint.
 *
 * @param name the schedule's name
 * @param type the job type it enqueues
 * @param expression {@code cron:<expression>} or {@code every:<ISO-8601 duration>}
 * @param zone the time zone cron expressions are read in
 * @param misfire what happens to ticks missed during downtime ({@link Misfire#ONCE} or
 * {@link Misfire#SKIP})
 * @param nextRunAt the next tick that will enqueue a job
 * @param lastTickAt the tick of the latest job enqueued, or {@code null}
 * @param lastJobId the id of that job, or {@code null}
 * @param declaredAt when a running process last declared the schedule
 * @param definedBy the scheduler whose definition the row holds (the process that started
 * last)
 * @param live whether a process declared it recently; a schedule no process declares any
 * more (removed from the code) is not fired
 * @param paused whether its job type is paused, which holds its ticks back
 */
public record ScheduleInfo(String name, String type, String expression, String zone, Misfire misfire, Instant nextRunAt,
		@Nullable Instant lastTickAt, @Nullable Long lastJobId, Instant declaredAt, String definedBy, boolean live,
		boolean paused) {
}
