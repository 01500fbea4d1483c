package dev.jobqueue.core.store;

import java.time.Instant;
import java.util.Collection;
import java.util.List;

import dev.jobqueue.ScheduleInfo;

/**
 * Where recurring schedules live. Firing happens in one transaction per call that reads
 * the due schedules, asks the caller what to do and writes job and schedule together, so
 * a tick yields one job however many processes fire at once. The store never reads a
 * clock.
 */
public interface ScheduleStore {

	/**
	 * Writes this process's definitions. A name that is new gets its first tick after
	 * {@code now}; a name whose expression or zone changed gets a fresh next tick;
	 * otherwise the next tick is kept (so ticks missed during downtime are seen as
	 * missed).
	 */
	void declare(List<DeclaredSchedule> schedules, String definedBy, Instant now);

	/**
	 * Marks the names as still declared by a live process.
	 * @return how many of them exist; fewer than given means rows are missing and must be
	 * declared again
	 */
	int refresh(Collection<String> names, Instant now);

	/**
	 * The earliest next tick among the names whose type is not paused, or {@code null}.
	 */
	Instant earliestDue(Collection<String> names);

	/**
	 * Fires every schedule among {@code names} whose next tick is at or before
	 * {@code now} and whose type is not paused, as {@code planner} decides, in one
	 * transaction.
	 */
	List<ScheduleFiring> fireDue(Collection<String> names, Instant now, TickPlanner planner);

	/**
	 * Every stored schedule, ordered by name.
	 * @param liveSince declarations at or after this instant count as live
	 */
	List<ScheduleInfo> schedules(Instant liveSince);

	/** Decides what a due schedule does now; {@code null} leaves it alone. */
	@FunctionalInterface
	interface TickPlanner {

		TickDecision plan(DueSchedule due, Instant now);

	}

}
