package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
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
import dev.jobqueue.core.DeclaredSchedule;
import dev.jobqueue.core.DueSchedule;
import dev.jobqueue.core.ScheduleFiring;
import dev.jobqueue.core.ScheduleStore;
import dev.jobqueue.core.TickDecision;

/**
 * The {@link ScheduleStore} on SQLite, in the same file as the jobs: a schedule's job and its next tick are
 * written in one {@code BEGIN IMMEDIATE} transaction. The tick is moved forward with a compare-and-set on the
 * row's {@code next_run_at} and {@code last_tick_at} (and a CHECK keeps the next tick after the last), so even
 * a writer that did not serialise through the write lock could not enqueue a tick twice.
 */
public final class SqliteScheduleStore implements ScheduleStore {

	private static final Logger logger = LoggerFactory.getLogger(SqliteScheduleStore.class);

	private static final String SELECT_DEFINITION = """
			SELECT expression, zone, next_run_at, last_tick_at FROM {schedules} WHERE name = ?
			""";

	private static final String UPSERT_SCHEDULE = """
			INSERT INTO {schedules} (name, type, expression, zone, misfire, payload, next_run_at, defined_by, declared_at,
			                         created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET type = excluded.type, expression = excluded.expression, zone = excluded.zone,
			    misfire = excluded.misfire, payload = excluded.payload, next_run_at = excluded.next_run_at,
			    defined_by = excluded.defined_by, declared_at = excluded.declared_at
			""";

	private static final String REFRESH = """
			UPDATE {schedules} SET declared_at = ? WHERE name IN (SELECT value FROM json_each(?))
			""";

	private static final String EARLIEST_DUE = """
			SELECT min(s.next_run_at) FROM {schedules} s
			WHERE s.name IN (SELECT value FROM json_each(?))
			  AND NOT EXISTS (SELECT 1 FROM {paused} p WHERE p.type = s.type)
			""";

	private static final String SELECT_DUE = """
			SELECT s.name, s.type, s.expression, s.zone, s.misfire, s.payload, s.next_run_at, s.last_tick_at
			FROM {schedules} s
			WHERE s.name IN (SELECT value FROM json_each(?)) AND s.next_run_at <= ?
			  AND NOT EXISTS (SELECT 1 FROM {paused} p WHERE p.type = s.type)
			ORDER BY s.next_run_at, s.name
			""";

	/** Moves the schedule past {@code tick}, only if nobody did so already. */
	private static final String ADVANCE_FIRED = """
			UPDATE {schedules} SET next_run_at = ?, last_tick_at = ?, last_fired_at = ?
			WHERE name = ? AND next_run_at = ? AND (last_tick_at IS NULL OR last_tick_at < ?)
			""";

	private static final String ADVANCE_SKIPPED = """
			UPDATE {schedules} SET next_run_at = ? WHERE name = ? AND next_run_at = ?
			""";

	private static final String SET_LAST_JOB = """
			UPDATE {schedules} SET last_job_id = ? WHERE name = ?
			""";

	private static final String INSERT_EVENT = """
			INSERT INTO {events} (job_id, at, event, actor, detail) VALUES (?, ?, ?, ?, ?)
			""";

	private static final String SELECT_ALL = """
			SELECT s.name, s.type, s.expression, s.zone, s.misfire, s.next_run_at, s.last_tick_at, s.last_job_id,
			       s.declared_at, s.defined_by, EXISTS (SELECT 1 FROM {paused} p WHERE p.type = s.type) AS paused
			FROM {schedules} s ORDER BY s.name
			""";

	private final SqliteJobStore jobs;

	private final SqliteDatabase database;

	private final TableNames tables;

	/**
	 * @param jobs the job store on the same database, which inserts the scheduled jobs
	 */
	public SqliteScheduleStore(SqliteJobStore jobs) {
		this.jobs = Objects.requireNonNull(jobs, "'jobs' must not be null");
		this.database = jobs.database();
		this.tables = jobs.tables();
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
		try (PreparedStatement select = connection.prepareStatement(sql(SELECT_DEFINITION))) {
			select.setString(1, schedule.name());
			try (ResultSet rows = select.executeQuery()) {
				if (!rows.next()) {
					next = schedule.schedule().nextAfter(now);
				}
				else if (schedule.schedule().expression().equals(rows.getString(1))
						&& schedule.zone().equals(rows.getString(2))) {
					next = Instant.ofEpochMilli(rows.getLong(3));
				}
				else {
					Instant lastTick = SqliteJobStore.instant(rows, "last_tick_at");
					Instant from = (lastTick != null && lastTick.isAfter(now)) ? lastTick : now;
					next = schedule.schedule().nextAfter(from);
					logger.info("Schedule '{}' changed from {} ({}) to {} ({}) by {}; next tick at {}", schedule.name(),
							rows.getString(1), rows.getString(2), schedule.schedule().expression(), schedule.zone(),
							definedBy, next);
				}
			}
		}
		try (PreparedStatement upsert = connection.prepareStatement(sql(UPSERT_SCHEDULE))) {
			upsert.setString(1, schedule.name());
			upsert.setString(2, schedule.type());
			upsert.setString(3, schedule.schedule().expression());
			upsert.setString(4, schedule.zone());
			upsert.setString(5, schedule.misfire().name().toLowerCase(Locale.ROOT));
			upsert.setString(6, schedule.payload());
			upsert.setLong(7, next.toEpochMilli());
			upsert.setString(8, definedBy);
			upsert.setLong(9, now.toEpochMilli());
			upsert.setLong(10, now.toEpochMilli());
			upsert.executeUpdate();
		}
	}

	@Override
	public int refresh(Collection<String> names, Instant now) {
		if (names.isEmpty()) {
			return 0;
		}
		return this.database.write("refresh " + names.size() + " schedule declaration(s)", (connection) -> {
			try (PreparedStatement refresh = connection.prepareStatement(sql(REFRESH))) {
				refresh.setLong(1, now.toEpochMilli());
				refresh.setString(2, SqliteJobStore.jsonStrings(names));
				return refresh.executeUpdate();
			}
		});
	}

	@Override
	public Instant earliestDue(Collection<String> names) {
		if (names.isEmpty()) {
			return null;
		}
		return this.database.read("read the next schedule tick", (connection) -> {
			try (PreparedStatement select = connection.prepareStatement(sql(EARLIEST_DUE))) {
				select.setString(1, SqliteJobStore.jsonStrings(names));
				try (ResultSet rows = select.executeQuery()) {
					if (!rows.next()) {
						return null;
					}
					long millis = rows.getLong(1);
					return rows.wasNull() ? null : Instant.ofEpochMilli(millis);
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
		try (PreparedStatement select = connection.prepareStatement(sql(SELECT_DUE))) {
			select.setString(1, SqliteJobStore.jsonStrings(names));
			select.setLong(2, now.toEpochMilli());
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					due.add(new DueSchedule(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4),
							misfire(rows.getString(5)), rows.getString(6), Instant.ofEpochMilli(rows.getLong(7)),
							SqliteJobStore.instant(rows, "last_tick_at")));
				}
			}
		}
		return due;
	}

	private ScheduleFiring apply(Connection connection, DueSchedule schedule, TickDecision decision, Instant now)
			throws SQLException {
		if (decision.job() == null) {
			try (PreparedStatement skip = connection.prepareStatement(sql(ADVANCE_SKIPPED))) {
				skip.setLong(1, decision.nextRunAt().toEpochMilli());
				skip.setString(2, schedule.name());
				skip.setLong(3, schedule.nextRunAt().toEpochMilli());
				if (skip.executeUpdate() == 0) {
					return null;
				}
			}
			return new ScheduleFiring(schedule.name(), null, null, true, decision.nextRunAt());
		}
		try (PreparedStatement advance = connection.prepareStatement(sql(ADVANCE_FIRED))) {
			advance.setLong(1, decision.nextRunAt().toEpochMilli());
			advance.setLong(2, decision.tick().toEpochMilli());
			advance.setLong(3, now.toEpochMilli());
			advance.setString(4, schedule.name());
			advance.setLong(5, schedule.nextRunAt().toEpochMilli());
			advance.setLong(6, decision.tick().toEpochMilli());
			if (advance.executeUpdate() == 0) {
				return null;
			}
		}
		long jobId = this.jobs.insertJobs(connection, List.of(decision.job()), now).get(0);
		try (PreparedStatement event = connection.prepareStatement(sql(INSERT_EVENT));
				PreparedStatement last = connection.prepareStatement(sql(SET_LAST_JOB))) {
			SqliteJobStore.addEvent(event, jobId, now.toEpochMilli(), "SCHEDULE_TICK", "scheduler", decision.detail());
			event.executeBatch();
			last.setLong(1, jobId);
			last.setString(2, schedule.name());
			last.executeUpdate();
		}
		return new ScheduleFiring(schedule.name(), decision.tick(), jobId, decision.catchUp(), decision.nextRunAt());
	}

	@Override
	public List<ScheduleInfo> schedules(Instant liveSince) {
		return this.database.read("read schedules", (connection) -> {
			List<ScheduleInfo> schedules = new ArrayList<>();
			try (PreparedStatement select = connection.prepareStatement(sql(SELECT_ALL));
					ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					Instant declaredAt = Instant.ofEpochMilli(rows.getLong("declared_at"));
					long lastJob = rows.getLong("last_job_id");
					Long lastJobId = rows.wasNull() ? null : lastJob;
					schedules.add(new ScheduleInfo(rows.getString("name"), rows.getString("type"),
							rows.getString("expression"), rows.getString("zone"), misfire(rows.getString("misfire")),
							Instant.ofEpochMilli(rows.getLong("next_run_at")), SqliteJobStore.instant(rows, "last_tick_at"),
							lastJobId, declaredAt, rows.getString("defined_by"), !declaredAt.isBefore(liveSince),
							rows.getInt("paused") == 1));
				}
			}
			return schedules;
		});
	}

	private static Misfire misfire(String value) {
		return "skip".equals(value) ? Misfire.SKIP : Misfire.ONCE;
	}

	private String sql(String template) {
		return this.tables.expand(template);
	}


}
