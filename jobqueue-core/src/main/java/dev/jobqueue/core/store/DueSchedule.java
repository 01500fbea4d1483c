package dev.jobqueue.core.store;

import java.time.Instant;

import dev.jobqueue.Misfire;

/**
 * A schedule row whose next tick has come, as the database holds it.
 *
 * @param name the schedule
 * @param type the job type
 * @param expression {@code cron:...} or {@code every:...}
 * @param zone the zone id
 * @param misfire policy for missed ticks
 * @param payload JSON payload
 * @param nextRunAt the first tick not fired yet
 * @param lastTickAt the latest tick fired, or {@code null}
 */
public record DueSchedule(String name, String type, String expression, String zone, Misfire misfire, String payload,
		Instant nextRunAt, Instant lastTickAt) {
}
