package dev.jobqueue.postgresql;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.Job;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.PausedType;
import dev.jobqueue.core.store.JobAdminStore;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JobAdminStore} on PostgreSQL: what an operator does to one job or one type.
 * A cancel of a running job (wherever it runs) and a retry send a notification in their
 * transaction, so the worker concerned reacts on commit rather than at its next lease
 * renewal or poll.
 */
public final class PostgresJobAdminStore implements JobAdminStore {

	private static final String NOTIFY = "(SELECT pg_notify(:channel, :message))";

	private static final String INSERT_EVENT = """
			INSERT INTO {events} (job_id, at, event, actor, detail) VALUES (:job_id, :at, :event, :actor, :detail)
			""";

	/** A job that has not started: pending, or waiting for other jobs. */
	private static final String CANCEL_UNSTARTED = """
			UPDATE {jobs} SET status = 'cancelled', finished_at = :now, waiting_for = 0
			WHERE id = :job_id AND status IN ('pending', 'waiting')
			""";

	/**
	 * A chain's unstarted steps, locked in id order first (as the settle of dependencies
	 * locks waiting jobs), so a cancel of a chain and completions of its steps do not
	 * deadlock.
	 */
	private static final String CANCEL_CHAIN_UNSTARTED = """
			WITH locked AS (
			    SELECT id FROM {jobs} WHERE chain_id = :chain_id AND status IN ('pending', 'waiting')
			    ORDER BY id FOR UPDATE
			)
			UPDATE {jobs} SET status = 'cancelled', finished_at = :now, waiting_for = 0, error_code = :error_code,
			    error_detail = 'its chain was cancelled'
			WHERE id = ANY(ARRAY(SELECT id FROM locked)) AND status IN ('pending', 'waiting')
			RETURNING id
			""";

	/**
	 * A chain's running steps: their workers stop them (at once when notified, else at
	 * their next lease renewal), and their success creates no continuation.
	 */
	private static final String CANCEL_CHAIN_RUNNING = """
			UPDATE {jobs} SET cancel_requested = true
			WHERE chain_id = :chain_id AND status = 'running'
			RETURNING id, pg_notify(:channel, replace(:message, '#', id::text))
			""";

	/**
	 * Asks the worker running the job, wherever it runs, to stop it: at its next lease
	 * renewal, or at once when notified.
	 */
	private static final String REQUEST_CANCEL_RUNNING = """
			UPDATE {jobs} SET cancel_requested = true
			WHERE id = :job_id AND status = 'running' AND NOT cancel_requested
			RETURNING %s
			""".formatted(NOTIFY);

	private static final String RETRY_FINISHED = """
			UPDATE {jobs}
			SET status = 'pending', attempts = 0, snoozes = 0, run_at = :now, finished_at = NULL, result = NULL,
			    cancel_requested = false, lease_until = NULL
			WHERE id = :job_id AND status IN ('failed', 'cancelled')
			RETURNING %s
			""".formatted(NOTIFY);

	private static final String JOB_COLUMNS = """
			SELECT id, type, status, priority, payload, result, dedup_key, attempts, max_attempts, run_at, created_at,
			       started_at, finished_at, worker_id, heartbeat_at, lease_until, error_code, error_detail, cancel_requested,
			       chain_id, chain_index, waiting_for
			""";

	private static final String SELECT_JOB = JOB_COLUMNS + """
			FROM {jobs} WHERE id = :job_id
			""";

	/** A chain's steps, from jobs_chain_idx. */
	private static final String SELECT_CHAIN = JOB_COLUMNS + """
			FROM {jobs} WHERE chain_id = :chain_id ORDER BY chain_index, id
			""";

	private static final String INSERT_PAUSED_TYPE = """
			INSERT INTO {paused} (type, paused_at, paused_by) VALUES (:type, :now, :actor)
			ON CONFLICT (type) DO NOTHING
			""";

	private static final String DELETE_PAUSED_TYPE = """
			DELETE FROM {paused} WHERE type = :type
			""";

	private static final String SELECT_PAUSED_TYPES = """
			SELECT type, paused_at FROM {paused} ORDER BY type
			""";

	private final PostgresDatabase database;

	private final Tables tables;

	private final PostgresJobStore jobs;

	/**
	 * @param jobs the job store on the same database, whose notifications this store
	 * sends too
	 */
	public PostgresJobAdminStore(PostgresJobStore jobs) {
		this.jobs = Objects.requireNonNull(jobs, "'jobs' must not be null");
		this.database = jobs.database();
		this.tables = jobs.tables();
	}

	@Override
	public boolean cancel(long id, Instant now) {
		return this.database.write("cancel job " + id, (connection) -> {
			try (SqlStatement cancel = sql(CANCEL_UNSTARTED).prepare(connection);
					SqlStatement event = sql(INSERT_EVENT).prepare(connection)) {
				cancel.bind("now", now).bind("job_id", id);
				if (cancel.executeUpdate() == 1) {
					PostgresJobStore.addEvent(event, id, now, "CANCELLED", "api", "cancelled before it ran");
					event.executeBatch();
					this.jobs.links().settle(connection, Map.of(id, "cancelled"), "api", now);
					return true;
				}
				try (SqlStatement request = sql(REQUEST_CANCEL_RUNNING).prepare(connection)) {
					request.bind("job_id", id);
					this.jobs.notification(request, PostgresNotifications.CANCEL + id);
					try (ResultSet rows = request.executeQuery()) {
						if (!rows.next()) {
							return false;
						}
					}
				}
				PostgresJobStore.addEvent(event, id, now, "CANCEL_REQUESTED", "api",
						"running: the handler is interrupted");
				event.executeBatch();
				return true;
			}
		});
	}

	@Override
	public boolean retry(long id, Instant now) {
		try {
			return this.database.write("retry job " + id, (connection) -> {
				try (SqlStatement retry = sql(RETRY_FINISHED).prepare(connection);
						SqlStatement event = sql(INSERT_EVENT).prepare(connection)) {
					retry.bind("now", now).bind("job_id", id);
					this.jobs.notification(retry, PostgresNotifications.ENQUEUED);
					try (ResultSet rows = retry.executeQuery()) {
						if (!rows.next()) {
							return false;
						}
					}
					PostgresJobStore.addEvent(event, id, now, "RETRIED", "api",
							"back to pending with a fresh set of attempts");
					event.executeBatch();
					return true;
				}
			});
		}
		catch (JobQueueException ex) {
			if (PostgresErrors.state(ex).equals(PostgresErrors.UNIQUE_VIOLATION)) {
				throw new JobQueueException("Job " + id + " cannot be retried: another unfinished job has the same "
						+ "dedup key. Let that job finish or cancel it first.", ex);
			}
			throw ex;
		}
	}

	@Override
	public Optional<Job> find(long id) {
		return this.database.read("read job " + id, (connection) -> {
			try (SqlStatement select = sql(SELECT_JOB).prepare(connection)) {
				select.bind("job_id", id);
				try (ResultSet rows = select.executeQuery()) {
					return rows.next() ? Optional.of(mapJob(rows)) : Optional.empty();
				}
			}
		});
	}

	@Override
	public List<Long> cancelChain(long chainId, Instant now) {
		return this.database.writeJoiningTransaction("cancel chain " + chainId, (connection) -> {
			List<Long> steps = new ArrayList<>();
			Map<Long, String> cancelled = new LinkedHashMap<>();
			try (SqlStatement unstarted = sql(CANCEL_CHAIN_UNSTARTED).prepare(connection);
					SqlStatement running = sql(CANCEL_CHAIN_RUNNING).prepare(connection);
					SqlStatement event = sql(INSERT_EVENT).prepare(connection)) {
				unstarted.bind("now", now).bind("chain_id", chainId).bind("error_code", ErrorCodes.CANCELLED_CHAIN);
				try (ResultSet rows = unstarted.executeQuery()) {
					while (rows.next()) {
						long id = rows.getLong(1);
						steps.add(id);
						cancelled.put(id, "cancelled");
						PostgresJobStore.addEvent(event, id, now, "CANCELLED", "api",
								"chain " + chainId + " cancelled");
					}
				}
				running.bind("chain_id", chainId);
				this.jobs.notification(running, PostgresNotifications.CANCEL + "#");
				try (ResultSet rows = running.executeQuery()) {
					while (rows.next()) {
						long id = rows.getLong(1);
						steps.add(id);
						PostgresJobStore.addEvent(event, id, now, "CANCEL_REQUESTED", "api",
								"chain " + chainId + " cancelled: the handler is interrupted");
					}
				}
				event.executeBatch();
			}
			if (!cancelled.isEmpty()) {
				this.jobs.links().settle(connection, cancelled, "api", now);
			}
			steps.sort(null);
			return steps;
		}, () -> {
		});
	}

	@Override
	public List<Job> findChain(long chainId) {
		return this.database.read("read chain " + chainId, (connection) -> {
			List<Job> steps = new ArrayList<>();
			try (SqlStatement select = sql(SELECT_CHAIN).prepare(connection)) {
				select.bind("chain_id", chainId);
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						steps.add(mapJob(rows));
					}
				}
			}
			return steps;
		});
	}

	private static Job mapJob(ResultSet rows) throws SQLException {
		return new Job(rows.getLong("id"), rows.getString("type"), JobStatus.fromDbValue(rows.getString("status")),
				rows.getInt("priority"), rows.getString("payload"), rows.getString("result"),
				rows.getString("dedup_key"), rows.getInt("attempts"), rows.getInt("max_attempts"),
				PostgresDialect.INSTANCE.instant(rows, "run_at"), PostgresDialect.INSTANCE.instant(rows, "created_at"),
				PostgresDialect.INSTANCE.instant(rows, "started_at"),
				PostgresDialect.INSTANCE.instant(rows, "finished_at"), rows.getString("worker_id"),
				PostgresDialect.INSTANCE.instant(rows, "heartbeat_at"),
				PostgresDialect.INSTANCE.instant(rows, "lease_until"), rows.getString("error_code"),
				rows.getString("error_detail"), rows.getBoolean("cancel_requested"),
				rows.getObject("chain_id", Long.class), rows.getObject("chain_index", Integer.class),
				rows.getInt("waiting_for"));
	}

	@Override
	public boolean pause(String type, String actor, Instant now) {
		return this.database.write("pause job type '" + type + "'", (connection) -> {
			try (SqlStatement insert = sql(INSERT_PAUSED_TYPE).prepare(connection)) {
				return insert.bind("type", type).bind("now", now).bind("actor", actor).executeUpdate() == 1;
			}
		});
	}

	@Override
	public boolean resume(String type) {
		return this.database.write("resume job type '" + type + "'", (connection) -> {
			try (SqlStatement delete = sql(DELETE_PAUSED_TYPE).prepare(connection)) {
				return delete.bind("type", type).executeUpdate() == 1;
			}
		});
	}

	@Override
	public List<PausedType> pausedTypes() {
		return this.database.read("read paused job types", (connection) -> {
			List<PausedType> paused = new ArrayList<>();
			try (SqlStatement select = sql(SELECT_PAUSED_TYPES).prepare(connection);
					ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					paused.add(new PausedType(rows.getString(1), PostgresDialect.INSTANCE.instant(rows, 2)));
				}
			}
			return paused;
		});
	}

	private Sql sql(String template) {
		return this.tables.sql(template);
	}

}
