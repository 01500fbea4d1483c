package dev.jobqueue.sqlite;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.HashMap;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.Job;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.PausedType;
import dev.jobqueue.core.store.JobAdminStore;
import dev.jobqueue.jdbc.Columns;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JobAdminStore} on SQLite: cancel, retry and read single jobs, pause and
 * resume types. Same statement conventions as {@link SqliteJobStore}.
 */
public final class SqliteJobAdminStore implements JobAdminStore {

	private static final String CANCEL_PENDING = """
			UPDATE {jobs} SET status = 'cancelled', finished_at = :now, waiting_for = 0
			WHERE id = :job_id AND status IN ('pending', 'waiting')
			""";

	private static final String CANCEL_CHAIN_UNSTARTED = """
			UPDATE {jobs} SET status = 'cancelled', finished_at = :now, waiting_for = 0, error_code = :error_code,
			    error_detail = 'its chain was cancelled'
			WHERE chain_id = :chain_id AND status IN ('pending', 'waiting')
			RETURNING id
			""";

	private static final String CANCEL_CHAIN_RUNNING = """
			UPDATE {jobs} SET cancel_requested = 1 WHERE chain_id = :chain_id AND status = 'running'
			RETURNING id
			""";

	/**
	 * A running job is cancelled by its worker, which sees the flag when it renews the
	 * lease.
	 */
	private static final String REQUEST_CANCEL_RUNNING = """
			UPDATE {jobs} SET cancel_requested = 1 WHERE id = :job_id AND status = 'running' AND cancel_requested = 0
			""";

	private static final String RETRY_FINISHED = """
			UPDATE {jobs}
			SET status = 'pending', attempts = 0, snoozes = 0, run_at = :now, finished_at = NULL, result = NULL,
			    cancel_requested = 0, lease_until = NULL
			WHERE id = :job_id AND status IN ('failed', 'cancelled')
			""";

	private static final String JOB_COLUMNS = """
			SELECT id, type, status, priority, payload, result, dedup_key, attempts, max_attempts, run_at, created_at,
			       started_at, finished_at, worker_id, heartbeat_at, lease_until, error_code, error_detail, cancel_requested,
			       chain_id, chain_index, waiting_for
			""";

	private static final String SELECT_JOB = JOB_COLUMNS + """
			FROM {jobs} WHERE id = :job_id
			""";

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

	private final SqliteDatabase database;

	private final JobEvents events;

	private final Sql cancelPending;

	private final Sql requestCancelRunning;

	private final Sql retryFinished;

	private final Sql selectJob;

	private final Sql selectChain;

	private final Sql cancelChainUnstarted;

	private final Sql cancelChainRunning;

	private final SqliteLinks links;

	private final Sql insertPausedType;

	private final Sql deletePausedType;

	private final Sql selectPausedTypes;

	public SqliteJobAdminStore(SqliteDatabase database, Tables tables) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		Objects.requireNonNull(tables, "'tables' must not be null");
		this.events = new JobEvents(tables);
		this.cancelPending = tables.sql(CANCEL_PENDING);
		this.requestCancelRunning = tables.sql(REQUEST_CANCEL_RUNNING);
		this.retryFinished = tables.sql(RETRY_FINISHED);
		this.selectJob = tables.sql(SELECT_JOB);
		this.selectChain = tables.sql(SELECT_CHAIN);
		this.cancelChainUnstarted = tables.sql(CANCEL_CHAIN_UNSTARTED);
		this.cancelChainRunning = tables.sql(CANCEL_CHAIN_RUNNING);
		this.links = new SqliteLinks(tables, this.events);
		this.insertPausedType = tables.sql(INSERT_PAUSED_TYPE);
		this.deletePausedType = tables.sql(DELETE_PAUSED_TYPE);
		this.selectPausedTypes = tables.sql(SELECT_PAUSED_TYPES);
	}

	@Override
	public boolean cancel(long id, Instant now) {
		return cancel(id, now, () -> {
		});
	}

	@Override
	public boolean cancel(long id, Instant now, Runnable afterCommit) {
		return this.database.writeJoiningTransaction("cancel job " + id, (connection) -> {
			try (SqlStatement cancel = this.cancelPending.prepare(connection);
					SqlStatement event = this.events.prepare(connection)) {
				if (cancel.bind("now", now).bind("job_id", id).executeUpdate() == 1) {
					JobEvents.add(event, id, now, "CANCELLED", "api", "cancelled before it ran");
					event.executeBatch();
					this.links.settle(connection, Map.of(id, "cancelled"), "api", now);
					return true;
				}
				try (SqlStatement request = this.requestCancelRunning.prepare(connection)) {
					if (request.bind("job_id", id).executeUpdate() == 1) {
						JobEvents.add(event, id, now, "CANCEL_REQUESTED", "api", "running: the handler is interrupted");
						event.executeBatch();
						return true;
					}
				}
				return false;
			}
		}, ifApplied(afterCommit));
	}

	@Override
	public boolean retry(long id, Instant now) {
		return retry(id, now, () -> {
		});
	}

	@Override
	public boolean retry(long id, Instant now, Runnable afterCommit) {
		try {
			return this.database.writeJoiningTransaction("retry job " + id, (connection) -> {
				try (SqlStatement retry = this.retryFinished.prepare(connection);
						SqlStatement event = this.events.prepare(connection)) {
					if (retry.bind("now", now).bind("job_id", id).executeUpdate() == 0) {
						return false;
					}
					JobEvents.add(event, id, now, "RETRIED", "api", "back to pending with a fresh set of attempts");
					event.executeBatch();
					return true;
				}
			}, ifApplied(afterCommit));
		}
		catch (JobQueueException ex) {
			if (ex.getCause() instanceof SQLException sql
					&& SqliteErrors.primaryCode(sql) == SqliteErrors.SQLITE_CONSTRAINT) {
				throw new JobQueueException("Job " + id + " cannot be retried: another unfinished job has the same "
						+ "dedup key. Let that job finish or cancel it first.", ex);
			}
			throw ex;
		}
	}

	@Override
	public Optional<Job> find(long id) {
		return this.database.read("read job " + id, (connection) -> {
			try (SqlStatement select = this.selectJob.prepare(connection);
					ResultSet rows = select.bind("job_id", id).executeQuery()) {
				return rows.next() ? Optional.of(job(rows)) : Optional.empty();
			}
		});
	}

	@Override
	public List<Long> cancelChain(long chainId, Instant now) {
		return this.database.writeJoiningTransaction("cancel chain " + chainId, (connection) -> {
			List<Long> steps = new ArrayList<>();
			Map<Long, String> cancelled = new HashMap<>();
			try (SqlStatement unstarted = this.cancelChainUnstarted.prepare(connection);
					SqlStatement running = this.cancelChainRunning.prepare(connection);
					SqlStatement event = this.events.prepare(connection)) {
				unstarted.bind("now", now).bind("chain_id", chainId).bind("error_code", ErrorCodes.CANCELLED_CHAIN);
				try (ResultSet rows = unstarted.executeQuery()) {
					while (rows.next()) {
						long id = rows.getLong(1);
						steps.add(id);
						cancelled.put(id, "cancelled");
						JobEvents.add(event, id, now, "CANCELLED", "api", "chain " + chainId + " cancelled");
					}
				}
				try (ResultSet rows = running.bind("chain_id", chainId).executeQuery()) {
					while (rows.next()) {
						long id = rows.getLong(1);
						steps.add(id);
						JobEvents.add(event, id, now, "CANCEL_REQUESTED", "api",
								"chain " + chainId + " cancelled: the handler is interrupted");
					}
				}
				event.executeBatch();
			}
			this.links.settle(connection, cancelled, "api", now);
			steps.sort(null);
			return steps;
		}, (steps) -> {
		});
	}

	@Override
	public List<Job> findChain(long chainId) {
		return this.database.read("read chain " + chainId, (connection) -> {
			List<Job> steps = new ArrayList<>();
			try (SqlStatement select = this.selectChain.prepare(connection);
					ResultSet rows = select.bind("chain_id", chainId).executeQuery()) {
				while (rows.next()) {
					steps.add(job(rows));
				}
			}
			return steps;
		});
	}

	private static Job job(ResultSet rows) throws SQLException {
		return new Job(rows.getLong("id"), rows.getString("type"), JobStatus.fromDbValue(rows.getString("status")),
				rows.getInt("priority"), rows.getString("payload"), rows.getString("result"),
				rows.getString("dedup_key"), rows.getInt("attempts"), rows.getInt("max_attempts"),
				SqliteDialect.INSTANCE.instant(rows, "run_at"), SqliteDialect.INSTANCE.instant(rows, "created_at"),
				SqliteDialect.INSTANCE.instant(rows, "started_at"), SqliteDialect.INSTANCE.instant(rows, "finished_at"),
				rows.getString("worker_id"), SqliteDialect.INSTANCE.instant(rows, "heartbeat_at"),
				SqliteDialect.INSTANCE.instant(rows, "lease_until"), rows.getString("error_code"),
				rows.getString("error_detail"), rows.getInt("cancel_requested") == 1,
				Columns.nullableLong(rows, "chain_id"), Columns.nullableInt(rows, "chain_index"),
				rows.getInt("waiting_for"));
	}

	@Override
	public boolean pause(String type, String actor, Instant now) {
		return this.database.writeJoiningTransaction("pause job type '" + type + "'", (connection) -> {
			try (SqlStatement insert = this.insertPausedType.prepare(connection)) {
				return insert.bind("type", type).bind("now", now).bind("actor", actor).executeUpdate() == 1;
			}
		}, () -> {
		});
	}

	@Override
	public boolean resume(String type) {
		return resume(type, () -> {
		});
	}

	@Override
	public boolean resume(String type, Runnable afterCommit) {
		return this.database.writeJoiningTransaction("resume job type '" + type + "'", (connection) -> {
			try (SqlStatement delete = this.deletePausedType.prepare(connection)) {
				return delete.bind("type", type).executeUpdate() == 1;
			}
		}, ifApplied(afterCommit));
	}

	/** Runs {@code afterCommit} only when the write changed something. */
	private static Consumer<Boolean> ifApplied(Runnable afterCommit) {
		return (applied) -> {
			if (applied) {
				afterCommit.run();
			}
		};
	}

	@Override
	public List<PausedType> pausedTypes() {
		return this.database.read("read paused job types", (connection) -> {
			List<PausedType> paused = new ArrayList<>();
			try (SqlStatement select = this.selectPausedTypes.prepare(connection);
					ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					paused.add(new PausedType(rows.getString(1), Instant.ofEpochMilli(rows.getLong(2))));
				}
			}
			return paused;
		});
	}

}
