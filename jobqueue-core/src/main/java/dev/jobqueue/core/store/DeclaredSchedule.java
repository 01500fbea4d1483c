package dev.jobqueue.core.store;

import dev.jobqueue.Misfire;
import dev.jobqueue.Schedule;

/**
 * A schedule as one process declares it, with defaults resolved.
 *
 * @param name the schedule's unique name
 * @param type the job type it enqueues
 * @param schedule when, with its zone resolved (cron) and misfire policy set
 * @param zone the zone id written to the database
 * @param misfire {@link Misfire#ONCE} or {@link Misfire#SKIP}
 * @param payload the JSON payload of every job
 * @param source where it was declared, for messages
 */
public record DeclaredSchedule(String name, String type, Schedule schedule, String zone, Misfire misfire,
		String payload, String source) {
}
