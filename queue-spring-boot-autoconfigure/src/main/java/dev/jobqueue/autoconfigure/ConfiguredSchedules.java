package dev.jobqueue.autoconfigure;

import java.util.Map;

import dev.jobqueue.Schedule;
import dev.jobqueue.core.schedule.JobScheduler;

/**
 * Turns {@code jobqueue.scheduling.schedules.<name>.*} into schedules, with errors that
 * name the property.
 */
final class ConfiguredSchedules {

	private ConfiguredSchedules() {
	}

	static void register(JobScheduler scheduler, String name, QueueProperties.ScheduleEntry entry) {
		String prefix = "jobqueue.scheduling.schedules." + name;
		if (entry.getType() == null || entry.getType().isBlank()) {
			throw new IllegalStateException(prefix + ".type is missing: set the job type the schedule enqueues");
		}
		boolean cron = entry.getCron() != null && !entry.getCron().isBlank();
		if (cron == (entry.getEvery() != null)) {
			throw new IllegalStateException(prefix + " needs exactly one of .cron (for example '0 0 * * * *') and "
					+ ".every (for example '5m')");
		}
		if (!cron && entry.getZone() != null) {
			throw new IllegalStateException(prefix + ".zone applies to cron only; remove it or use .cron");
		}
		Schedule schedule;
		try {
			schedule = cron ? Schedule.cron(entry.getCron(), entry.getZone()) : Schedule.every(entry.getEvery());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(prefix + ": " + ex.getMessage(), ex);
		}
		Map<String, Object> payload = entry.getPayload();
		scheduler.register(name, entry.getType(), schedule.withMisfire(entry.getMisfire()),
				(payload == null || payload.isEmpty()) ? null : payload, prefix);
	}

}
