package dev.jobqueue.core.schedule;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobSchedules;
import dev.jobqueue.Misfire;
import dev.jobqueue.Schedule;
import dev.jobqueue.ScheduleInfo;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.store.DeclaredSchedule;
import dev.jobqueue.core.store.DueSchedule;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.core.store.ScheduleFiring;
import dev.jobqueue.core.store.ScheduleStore;
import dev.jobqueue.core.store.TickDecision;

/**
 * Fires the recurring schedules this process declares. {@link #fireDue()} is synchronous
 * and reads the time from the injected clock; a lifecycle component calls it in a loop
 * (and tests call it directly).
 *
 * <ul>
 * <li><b>Once per tick.</b> The database row of a schedule holds its next tick. A tick is
 * fired only in the write transaction that moves that next tick past it, together with
 * the job's insert, and the row's {@code last_tick_at} only grows: several processes
 * firing at once yield one job per tick.</li>
 * <li><b>Missed ticks.</b> When the latest due tick is later than the misfire threshold
 * (downtime, or the type was paused), {@link Misfire#ONCE} enqueues one catch-up job and
 * {@link Misfire#SKIP} none; either way the schedule moves on to its first tick after
 * now, never one job per missed tick.</li>
 * <li><b>Removed schedules stop.</b> A process fires only the names it declares itself. A
 * name no running process declares any more stays in the table (shown as not live) but
 * never fires. When processes with different code declare the same name differently, the
 * row holds the definition of the process that started last, and every process declaring
 * the name fires it by that definition.</li>
 * </ul>
 */
public final class JobScheduler implements JobSchedules {

	/** How often a running process marks its schedules as still declared. */
	public static final Duration REFRESH_INTERVAL = Duration.ofMinutes(1);

	/** Schedules not declared for this long are shown as not live. */
	public static final Duration LIVE_WINDOW = REFRESH_INTERVAL.multipliedBy(5);

	static final int MAX_NAME_LENGTH = 100;

	private static final Instant NEVER = Instant.parse("9999-12-31T23:59:59Z");

	private static final Logger logger = LoggerFactory.getLogger(JobScheduler.class);

	private final ScheduleStore store;

	private final HandlerRegistry handlers;

	private final PayloadCodec codec;

	private final Clock clock;

	private final SchedulerSettings settings;

	private final Supplier<QueueSignals> signals;

	private final Map<String, DeclaredSchedule> declared = new LinkedHashMap<>();

	private final Map<String, Schedule> parsed = new ConcurrentHashMap<>();

	private boolean started;

	private Instant nextRefresh = Instant.MIN;

	private volatile Instant earliestDue;

	public JobScheduler(ScheduleStore store, HandlerRegistry handlers, PayloadCodec codec, Clock clock,
			SchedulerSettings settings, Supplier<QueueSignals> signals) {
		this.store = Objects.requireNonNull(store, "'store' must not be null");
		this.handlers = Objects.requireNonNull(handlers, "'handlers' must not be null");
		this.codec = Objects.requireNonNull(codec, "'codec' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		this.settings = Objects.requireNonNull(settings, "'settings' must not be null");
		this.signals = (signals != null) ? signals : () -> QueueSignals.NONE;
	}

	@Override
	public void register(String name, String type, Schedule schedule, Object payload) {
		register(name, type, schedule, payload, "JobSchedules.register(\"" + name + "\", ...)");
	}

	/**
	 * Declares a schedule, naming where it comes from in error messages.
	 * @throws JobQueueException if the name is taken here or an argument is invalid
	 */
	public void register(String name, String type, Schedule schedule, Object payload, String source) {
		if (name == null || name.isBlank() || !name.equals(name.strip()) || name.length() > MAX_NAME_LENGTH) {
			throw new JobQueueException("Schedule name '" + name + "' (" + source + ") is not usable: give a "
					+ "non-blank name of at most " + MAX_NAME_LENGTH
					+ " characters without leading or trailing spaces");
		}
		if (type == null || type.isBlank() || type.length() > EnqueueLimits.MAX_TYPE_LENGTH) {
			throw new JobQueueException("Schedule '" + name + "' (" + source + ") needs the job type to enqueue, "
					+ "as its @JobHandler declares it");
		}
		if (schedule == null) {
			throw new JobQueueException("Schedule '" + name + "' (" + source + ") needs a Schedule: "
					+ "Schedule.cron(\"0 0 * * * *\") or Schedule.every(Duration.ofMinutes(5))");
		}
		String json;
		try {
			json = this.codec.toJson(payload);
		}
		catch (RuntimeException ex) {
			throw new JobQueueException("The payload of schedule '" + name + "' (" + source + ") cannot be written "
					+ "as JSON: " + ex.getMessage(), ex);
		}
		ZoneId zone = schedule.isCron() ? ((schedule.zone() != null) ? schedule.zone() : this.settings.defaultZone())
				: ZoneOffset.UTC;
		Schedule resolved = schedule.inZone(zone);
		if (resolved.nextAfter(this.clock.instant()) == null) {
			throw new JobQueueException(
					"Schedule '" + name + "' (" + source + ") never fires: " + schedule + " has no future tick. "
							+ "Give it an expression that matches a time to come (a day of the month that the month "
							+ "has, for example), or remove it.");
		}
		Misfire misfire = (schedule.misfire() == Misfire.DEFAULT) ? this.settings.defaultMisfire() : schedule.misfire();
		DeclaredSchedule declaration = new DeclaredSchedule(name, type, resolved.withMisfire(misfire), zone.getId(),
				misfire, json, source);
		boolean declareNow;
		synchronized (this) {
			DeclaredSchedule existing = this.declared.putIfAbsent(name, declaration);
			if (existing != null) {
				throw new JobQueueException("Schedule '" + name + "' is declared twice in this process: by "
						+ existing.source() + " and by " + source + ". Give each schedule its own name.");
			}
			declareNow = this.started;
		}
		if (declareNow) {
			try {
				this.store.declare(List.of(declaration), this.settings.schedulerId(), this.clock.instant());
			}
			catch (RuntimeException ex) {
				synchronized (this) {
					this.declared.remove(name);
				}
				throw ex;
			}
			this.earliestDue = null;
		}
	}

	/**
	 * Writes every schedule declared so far to the database; later registrations are
	 * written at once.
	 */
	public synchronized void start() {
		if (this.started) {
			return;
		}
		Instant now = this.clock.instant();
		if (!this.declared.isEmpty()) {
			this.store.declare(List.copyOf(this.declared.values()), this.settings.schedulerId(), now);
			logger.info("Declared {} job schedule(s): {}", this.declared.size(), this.declared.keySet());
		}
		this.nextRefresh = now.plus(REFRESH_INTERVAL);
		this.started = true;
	}

	/** Whether {@link #start()} ran. */
	public synchronized boolean isStarted() {
		return this.started;
	}

	/** The names this process declares. */
	public synchronized List<String> names() {
		return List.copyOf(this.declared.keySet());
	}

	/**
	 * Fires the schedules of this process that are due now. Starts the scheduler first if
	 * needed.
	 * @return what happened to each due schedule
	 */
	public synchronized List<ScheduleFiring> fireDue() {
		if (!this.started) {
			start();
		}
		if (this.declared.isEmpty()) {
			return List.of();
		}
		Instant now = this.clock.instant();
		List<String> names = List.copyOf(this.declared.keySet());
		if (!now.isBefore(this.nextRefresh)) {
			this.nextRefresh = now.plus(REFRESH_INTERVAL);
			if (this.store.refresh(names, now) < names.size()) {
				this.store.declare(List.copyOf(this.declared.values()), this.settings.schedulerId(), now);
			}
		}
		Instant earliest = this.store.earliestDue(names);
		if (earliest == null || earliest.isAfter(now)) {
			this.earliestDue = earliest;
			return List.of();
		}
		List<ScheduleFiring> fired = this.store.fireDue(names, now, this::plan);
		this.earliestDue = this.store.earliestDue(names);
		boolean enqueued = false;
		for (ScheduleFiring firing : fired) {
			if (firing.jobId() != null) {
				enqueued = true;
			}
			if (firing.catchUp()) {
				logger.info("Schedule '{}' missed ticks while no process fired it: {}; next tick at {}", firing.name(),
						(firing.jobId() != null) ? "one catch-up job " + firing.jobId() + " enqueued" : "skipped",
						firing.nextRunAt());
			}
		}
		if (enqueued) {
			this.signals.get().jobsEnqueued();
		}
		return fired;
	}

	/**
	 * The earliest next tick among this process's schedules as last read (types not
	 * paused), or {@code null} when unknown or none: how long the lifecycle loop may
	 * sleep.
	 */
	public Instant nextDue() {
		return this.earliestDue;
	}

	@Override
	public List<ScheduleInfo> schedules() {
		return this.store.schedules(this.clock.instant().minus(LIVE_WINDOW));
	}

	TickDecision plan(DueSchedule due, Instant now) {
		Schedule schedule;
		try {
			schedule = this.parsed.computeIfAbsent(due.expression() + "|" + due.zone(),
					(key) -> Schedule.parse(due.expression(), ZoneId.of(due.zone())));
		}
		catch (RuntimeException ex) {
			logger.error("Schedule '{}' holds '{}' in zone '{}', which this version cannot read ({}); it is not "
					+ "fired here", due.name(), due.expression(), due.zone(), ex.getMessage());
			return null;
		}
		Instant latest = latestTick(schedule, due.nextRunAt(), now);
		Instant next = schedule.nextAfter(latest);
		if (next == null) {
			next = NEVER;
		}
		boolean late = Duration.between(latest, now).compareTo(this.settings.misfireThreshold()) > 0;
		if (late && due.misfire() == Misfire.SKIP) {
			return new TickDecision(null, next, null, true, "schedule '" + due.name() + "' skipped ticks from "
					+ due.nextRunAt() + " to " + latest + " (misfire=skip)");
		}
		String detail = "schedule '" + due.name() + "' tick " + latest
				+ (late ? " (catch-up for ticks missed since " + due.nextRunAt() + ", misfire=once)" : "");
		NewJob job = new NewJob(due.type(), due.payload(), 0, late ? now : latest, maxAttempts(due.type()),
				"schedule:" + due.name() + "@" + latest, null);
		return new TickDecision(latest, next, job, late, detail);
	}

	private int maxAttempts(String type) {
		return this.handlers.find(type)
			.map(HandlerDefinition::maxAttempts)
			.filter((attempts) -> attempts > 0)
			.orElse(this.settings.defaultMaxAttempts());
	}

	/**
	 * The latest tick at or before {@code now}, given that {@code firstDue} is a tick at
	 * or before it. Looks back through doubling windows so that a long downtime costs a
	 * few dozen steps, not one per missed tick.
	 */
	static Instant latestTick(Schedule schedule, Instant firstDue, Instant now) {
		return latestTick(schedule::nextAfter, firstDue, now);
	}

	/**
	 * {@link #latestTick(Schedule, Instant, Instant)} on the schedule's
	 * {@code nextAfter}, which may count its calls.
	 */
	static Instant latestTick(UnaryOperator<Instant> nextAfter, Instant firstDue, Instant now) {
		Duration window = Duration.ofMinutes(1);
		while (true) {
			Instant windowStart = now.minus(window);
			if (!windowStart.isAfter(firstDue)) {
				return lastUpTo(nextAfter, firstDue, now);
			}
			Instant candidate = nextAfter.apply(windowStart.minusMillis(1));
			if (candidate != null && !candidate.isAfter(now)) {
				return lastUpTo(nextAfter, candidate, now);
			}
			window = window.multipliedBy(2);
		}
	}

	private static Instant lastUpTo(UnaryOperator<Instant> nextAfter, Instant tick, Instant now) {
		Instant latest = tick;
		while (true) {
			Instant next = nextAfter.apply(latest);
			if (next == null || next.isAfter(now)) {
				return latest;
			}
			latest = next;
		}
	}

}
