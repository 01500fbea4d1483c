package dev.jobqueue.core.schedule;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;

import dev.jobqueue.Misfire;

/**
 * How a {@link JobScheduler} fires schedules.
 *
 * @param schedulerId this process's id, written as the author of the definitions it
 * declares
 * @param defaultZone the zone of cron schedules declared without one
 * @param defaultMisfire the policy of schedules declared with {@link Misfire#DEFAULT}
 * @param misfireThreshold how late a tick may fire and still count as on time
 * @param defaultMaxAttempts attempts of scheduled jobs whose type has no handler here
 * declaring its own
 */
public record SchedulerSettings(String schedulerId, ZoneId defaultZone, Misfire defaultMisfire,
		Duration misfireThreshold, int defaultMaxAttempts) {

	public SchedulerSettings {
		Objects.requireNonNull(schedulerId, "'schedulerId' must not be null");
		Objects.requireNonNull(defaultZone, "'defaultZone' must not be null");
		if (defaultMisfire == null || defaultMisfire == Misfire.DEFAULT) {
			throw new IllegalArgumentException("jobqueue.scheduling.misfire must be 'once' or 'skip'");
		}
		Objects.requireNonNull(misfireThreshold, "'misfireThreshold' must not be null");
		if (misfireThreshold.isNegative()) {
			throw new IllegalArgumentException(
					"jobqueue.scheduling.misfire-threshold must not be negative, got " + misfireThreshold);
		}
	}

}
