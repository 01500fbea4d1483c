package dev.jobqueue;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Recurring jobs. A schedule enqueues one job per tick across every process that shares
 * the database, even when several of them declare it; after downtime it enqueues at most
 * one catch-up job (see {@link Misfire}). A schedule fires only while some running
 * process declares it, so a schedule removed from the code stops.
 *
 * <p>
 * Schedules come from {@code @JobHandler(cron = ...)} / {@code @JobHandler(every = ...)}
 * and from {@link #register}, for example with values read from configuration:
 *
 * <pre>{@code
 * schedules.register("nightly-export", "export", Schedule.cron("0 30 2 * * *", ZoneId.of("Europe/Paris")),
 *         new ExportRequest("all"));
 * }</pre>
 */
public interface JobSchedules {

	/**
	 * Declares a schedule in this process. Registering before the application has started
	 * is the usual case; a registration afterwards is written at once.
	 * @param name unique name of the schedule across the application (at most 100
	 * characters)
	 * @param type the job type to enqueue at each tick
	 * @param schedule when to enqueue
	 * @param payload the payload of every enqueued job, serialised to JSON once now
	 * @throws JobQueueException if the name is taken in this process or an argument is
	 * invalid
	 */
	void register(String name, String type, Schedule schedule, @Nullable Object payload);

	/**
	 * Every schedule in the database (including ones no process declares any more), with
	 * its next tick, ordered by name.
	 */
	List<ScheduleInfo> schedules();

}
