package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.Misfire;
import dev.jobqueue.ScheduleInfo;
import dev.jobqueue.core.store.DeclaredSchedule;
import dev.jobqueue.core.store.DueSchedule;
import dev.jobqueue.core.store.ScheduleFiring;
import dev.jobqueue.core.store.ScheduleStore;
import dev.jobqueue.core.store.TickDecision;

/**
 * The {@link ScheduleStore} on any JDBC database, in the same database as the jobs: a
 * schedule's job and its next tick are written in one transaction. Where the database
 * locks rows, processes firing at once do not wait for each other: each locks the due
 * schedule rows it reads and skips those another process holds
 * ({@code {for_update_skip_locked}}); where a write transaction holds the whole database
 * (SQLite) they take turns. The tick is then moved with a compare-and-set on
 * {@code next_run_at} and {@code last_tick_at} (a CHECK keeps the next tick after the
 * last), so one tick yields one job however many processes fire.
 */
public final class JdbcScheduleStore implements ScheduleStore {

	private static final Logger logger = LoggerFactory.getLogger(JdbcScheduleStore.class);

	private static final String SELECT_DEFINITION = """
			SELECT expression, zone, next_run_at, last_tick_at FROM {schedules} WHERE name = :name
			""";

	private static final String UPSERT_SCHEDULE = """
			INSERT INTO {schedules} (name, type, expression, zone, misfire, payload, next_run_at, defined_by, declared_at,
			                         created_at)
			VALUES (:name, :type, :expression, :zone, :misfire, :payload, :next_run_at, :defined_by, :now, :now)
			""";

	private static final String REFRESH = """
			UPDATE {schedules} SET declared_at = :now WHERE name {in_texts :names}
			""";

	private static final String EARLIEST_DUE = """
			SELECT min(s.next_run_at) FROM {schedules} s
			WHERE s.name {in_texts :names}
			  AND NOT EXISTS (SELECT 1 FROM {paused} p WHERE p.type = s.type)
			""";

	private static final String SELECT_DUE = """
			SELECT s.name, s.type, s.expression, s.zone, s.misfire, s.payload, s.next_run_at, s.last_tick_at
			FROM {schedules} s
			WHERE s.name {in_texts :names} AND s.next_run_at <= :now
			  AND NOT EXISTS (SELECT 1 FROM {paused} p WHERE p.type = s.type)
			ORDER BY s.next_run_at, s.name
			{for_update_skip_locked}
			""";

	/** Moves the schedule past {@code tick}, only if nobody did so already. */
	private static final String ADVANCE_FIRED = """
			UPDATE {schedules} SET next_run_at = :next_run_at, last_tick_at = :tick, last_fired_at = :now
			WHERE name = :name AND next_run_at = :due_at AND (last_tick_at IS NULL OR last_tick_at < :tick)
			""";

	private static final String ADVANCE_SKIPPED = """
			UPDATE {schedules} SET next_run_at = :next_run_at WHERE name = :name AND next_run_at = :due_at
			""";

	private static final String SET_LAST_JOB = """
			UPDATE {schedules} SET last_job_id = :job_id WHERE name = :name
			""";

	private static final String SELECT_ALL = """
			SELECT s.name, s.type, s.expression, s.zone, s.misfire, s.next_run_at, s.last_tick_at, s.last_job_id,
			       s.declared_at, s.defined_by, EXISTS (SELECT 1 FROM {paused} p WHERE p.type = s.type) AS paused
			FROM {schedules} s ORDER BY s.name
			""";

	private final JdbcDatabase database;

	private final Dialect dialect;

	private final JobInserts inserts;

	private final JobEvents events;

	private final Sql selectDefinition;

	private final Sql upsertSchedule;

	private final Sql refresh;

	private final Sql earliestDue;

	private final Sql selectDue;

	private final Sql advanceFired;

	private final Sql advanceSkipped;

	private final Sql setLastJob;

	private final Sql selectAll;

	/**
	 * @param inserts how the job store on the same database inserts jobs, here the
	 * scheduled ones, in the transaction that advances their schedule
	 */
	public JdbcScheduleStore(JdbcDatabase database, Tables tables, JobInserts inserts) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		Objects.requireNonNull(tables, "'tables' must not be null");
		this.dialect = tables.dialect();
		this.inserts = Objects.requireNonNull(inserts, "'inserts' must not be null");
		this.events = new JobEvents(tables);
		this.selectDefinition = tables.sql(SELECT_DEFINITION);
		this.upsertSchedule = tables.sql(tables.dialect()
			.upsert(UPSERT_SCHEDULE, "name", List.of("type", "expression", "zone", "misfire", "payload", "next_run_at",
					"defined_by", "declared_at")));
		this.refresh = tables.sql(REFRESH);
		this.earliestDue = tables.sql(EARLIEST_DUE);
		this.selectDue = tables.sql(SELECT_DUE);
		this.advanceFired = tables.sql(ADVANCE_FIRED);
		this.advanceSkipped = tables.sql(ADVANCE_SKIPPED);
		this.setLastJob = tables.sql(SET_LAST_JOB);
		this.selectAll = tables.sql(SELECT_ALL);
	}

	@Override
	public void declare(List<DeclaredSchedule> schedules, String definedBy, Instant now) {
		if (schedules.isEmpty()) {
			return;
		}
		this.database.write("declare " + schedules.size() + " schedule(s)", (connection) -> {
			for (DeclaredSchedule schedule : schedules) {
				declareOne(connection, schedule, definedBy, now);
			}
			return null;
		});
	}

	private void declareOne(Connection connection, DeclaredSchedule schedule, String definedBy, Instant now)
			throws SQLException {
		Instant next;
		try (SqlStatement select = this.selectDefinition.prepare(connection)) {
			try (ResultSet rows = select.bind("name", schedule.name()).executeQuery()) {
				if (!rows.next()) {
					next = schedule.schedule().nextAfter(now);
				}
				else if (schedule.schedule().expression().equals(rows.getString(1))
						&& schedule.zone().equals(rows.getString(2))) {
					next = this.dialect.instant(rows, 3);
				}
				else {
					Instant lastTick = this.dialect.instant(rows, 4);
					Instant from = (lastTick != null && lastTick.isAfter(now)) ? lastTick : now;
					next = schedule.schedule().nextAfter(from);
					logger.info("Schedule '{}' changed from {} ({}) to {} ({}) by {}; next tick at {}", schedule.name(),
							rows.getString(1), rows.getString(2), schedule.schedule().expression(), schedule.zone(),
							definedBy, next);
				}
			}
		}
		try (SqlStatement upsert = this.upsertSchedule.prepare(connection)) {
			upsert.bind("name", schedule.name())
				.bind("type", schedule.type())
				.bind("expression", schedule.schedule().expression())
				.bind("zone", schedule.zone())
				.bind("misfire", schedule.misfire().name().toLowerCase(Locale.ROOT))
				.bind("payload", schedule.payload())
				.bind("next_run_at", next)
				.bind("defined_by", definedBy)
				.bind("now", now)
				.executeUpdate();
		}
	}

	@Override
	public int refresh(Collection<String> names, Instant now) {
		if (names.isEmpty()) {
			return 0;
		}
		return this.database.write("refresh " + names.size() + " schedule declaration(s)", (connection) -> {
			try (SqlStatement refresh = this.refresh.prepare(connection)) {
				return refresh.bind("now", now).bindTexts("names", names).executeUpdate();
			}
		});
	}

	@Override
	public Instant earliestDue(Collection<String> names) {
		if (names.isEmpty()) {
			return null;
		}
		return this.database.read("read the next schedule tick", (connection) -> {
			try (SqlStatement select = this.earliestDue.prepare(connection)) {
				try (ResultSet rows = select.bindTexts("names", names).executeQuery()) {
					return rows.next() ? this.dialect.instant(rows, 1) : null;
				}
			}
		});
	}

	@Override
	public List<ScheduleFiring> fireDue(Collection<String> names, Instant now, TickPlanner planner) {
		if (names.isEmpty()) {
			return List.of();
		}
		return this.database.write("fire due schedules", (connection) -> {
			List<DueSchedule> due = selectDue(connection, names, now);
			List<ScheduleFiring> fired = new ArrayList<>(due.size());
			for (DueSchedule schedule : due) {
				TickDecision decision = planner.plan(schedule, now);
				if (decision != null) {
					ScheduleFiring firing = apply(connection, schedule, decision, now);
					if (firing != null) {
						fired.add(firing);
					}
				}
			}
			return fired;
		});
	}

	private List<DueSchedule> selectDue(Connection connection, Collection<String> names, Instant now)
			throws SQLException {
		List<DueSchedule> due = new ArrayList<>();
		try (SqlStatement select = this.selectDue.prepare(connection)) {
			try (ResultSet rows = select.bindTexts("names", names).bind("now", now).executeQuery()) {
				while (rows.next()) {
					due.add(new DueSchedule(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4),
							misfire(rows.getString(5)), rows.getString(6), this.dialect.instant(rows, 7),
							this.dialect.instant(rows, 8)));
				}
			}
		}
		return due;
	}

	private ScheduleFiring apply(Connection connection, DueSchedule schedule, TickDecision decision, Instant now)
			throws SQLException {
		if (decision.job() == null) {
			try (SqlStatement skip = this.advanceSkipped.prepare(connection)) {
				skip.bind("next_run_at", decision.nextRunAt())
					.bind("name", schedule.name())
					.bind("due_at", schedule.nextRunAt());
				if (skip.executeUpdate() == 0) {
					return null;
				}
			}
			return new ScheduleFiring(schedule.name(), null, null, true, decision.nextRunAt());
		}
		try (SqlStatement advance = this.advanceFired.prepare(connection)) {
			advance.bind("next_run_at", decision.nextRunAt())
				.bind("tick", decision.tick())
				.bind("now", now)
				.bind("name", schedule.name())
				.bind("due_at", schedule.nextRunAt());
			if (advance.executeUpdate() == 0) {
				return null;
			}
		}
		long jobId = this.inserts.insert(connection, List.of(decision.job()), now).get(0);
		try (SqlStatement event = this.events.prepare(connection);
				SqlStatement last = this.setLastJob.prepare(connection)) {
			JobEvents.add(event, jobId, now, "SCHEDULE_TICK", "scheduler", decision.detail());
			event.executeBatch();
			last.bind("job_id", jobId).bind("name", schedule.name()).executeUpdate();
		}
		return new ScheduleFiring(schedule.name(), decision.tick(), jobId, decision.catchUp(), decision.nextRunAt());
	}

	@Override
	public List<ScheduleInfo> schedules(Instant liveSince) {
		return this.database.read("read schedules", (connection) -> {
			List<ScheduleInfo> schedules = new ArrayList<>();
			try (SqlStatement select = this.selectAll.prepare(connection); ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					Instant declaredAt = this.dialect.instant(rows, "declared_at");
					long lastJob = rows.getLong("last_job_id");
					Long lastJobId = rows.wasNull() ? null : lastJob;
					schedules.add(new ScheduleInfo(rows.getString("name"), rows.getString("type"),
							rows.getString("expression"), rows.getString("zone"), misfire(rows.getString("misfire")),
							this.dialect.instant(rows, "next_run_at"), this.dialect.instant(rows, "last_tick_at"),
							lastJobId, declaredAt, rows.getString("defined_by"), !declaredAt.isBefore(liveSince),
							rows.getBoolean("paused")));
				}
			}
			return schedules;
		});
	}

	private static Misfire misfire(String value) {
		return "skip".equals(value) ? Misfire.SKIP : Misfire.ONCE;
	}

}
