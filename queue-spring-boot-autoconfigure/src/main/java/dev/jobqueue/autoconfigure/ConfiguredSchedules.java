package dev.jobqueue.autoconfigure;

import java.util.Map;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.Schedule;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.schedule.JobScheduler;

/**
 * Turns {@code jobqueue.scheduling.schedules.<name>.*} into schedules. Their values are
 * checked when the properties bind ({@link QueuePropertiesValidation}, with the reasons
 * here), so a wrong one fails start-up in Boot's block naming the property; building a
 * schedule checks again, for properties bound without that validation.
 */
final class ConfiguredSchedules {

	private ConfiguredSchedules() {
	}

	static void register(JobScheduler scheduler, String name, QueueProperties.ScheduleEntry entry) {
		String prefix = "jobqueue.scheduling.schedules." + name;
		String problem = typeProblem(entry.getType());
		if (problem == null) {
			problem = timingProblem(entry);
		}
		if (problem != null) {
			throw new JobQueueException(prefix + ": " + problem);
		}
		Map<String, Object> payload = entry.getPayload();
		scheduler.register(name, entry.getType(), schedule(entry).withMisfire(entry.getMisfire()),
				(payload == null || payload.isEmpty()) ? null : payload, prefix);
	}

	/** What is wrong with a schedule's type, or {@code null}. */
	static String typeProblem(String type) {
		if (type == null || type.isBlank()) {
			return "the job type the schedule enqueues is missing: set .type to the type its @JobHandler declares";
		}
		String problem = EnqueueLimits.typeProblem(type);
		return (problem != null) ? problem + ". Set .type to the type its @JobHandler declares" : null;
	}

	/**
	 * What is wrong with a schedule's cron, interval or zone, or {@code null}: in words
	 * that stand after the property's name.
	 */
	static String timingProblem(QueueProperties.ScheduleEntry entry) {
		boolean cron = entry.getCron() != null && !entry.getCron().isBlank();
		if (cron == (entry.getEvery() != null)) {
			return "needs exactly one of .cron (Spring's six fields, seconds first, for example '0 0 * * * *') and "
					+ ".every (for example '5m')";
		}
		if (!cron && entry.getZone() != null) {
			return ".zone applies to cron only; remove it or use .cron";
		}
		try {
			schedule(entry);
			return null;
		}
		catch (IllegalArgumentException ex) {
			return ex.getMessage();
		}
	}

	/** The property {@link #timingProblem} is about. */
	static String timingProperty(QueueProperties.ScheduleEntry entry) {
		boolean cron = entry.getCron() != null && !entry.getCron().isBlank();
		if (cron == (entry.getEvery() != null)) {
			return cron ? "every" : "cron";
		}
		if (!cron && entry.getZone() != null) {
			return "zone";
		}
		return cron ? "cron" : "every";
	}

	private static Schedule schedule(QueueProperties.ScheduleEntry entry) {
		return (entry.getCron() != null && !entry.getCron().isBlank()) ? Schedule.cron(entry.getCron(), entry.getZone())
				: Schedule.every(entry.getEvery());
	}

}
