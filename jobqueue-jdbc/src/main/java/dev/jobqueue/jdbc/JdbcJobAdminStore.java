package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import dev.jobqueue.BulkAction;
import dev.jobqueue.ErrorCodes;
import dev.jobqueue.Job;
import dev.jobqueue.JobFilter;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.PausedType;
import dev.jobqueue.core.store.JobAdminStore;

/**
 * The {@link JobAdminStore} on any JDBC database: cancel, retry and read single jobs and
 * chains, pause and resume types. Every write joins the caller's transaction where the
 * database is the application's. A cancel of a running job and a retry are told to other
 * processes through the store's {@link ChangeNotifier}, so the worker concerned reacts on
 * commit where the database delivers messages, else at its next lease renewal or poll.
 *
 * <p>
 * A bulk action's batch ({@link #applyBulk}) runs the single-job statements, events,
 * settle and notifications for each job, after locking the jobs of the batch that still
 * match its filter (rows locked where the database locks rows; SQLite's write transaction
 * holds the whole database), so a job that changed since it was selected is left alone.
 *
 * <p>
 * Each transaction that finishes, retries or deletes finished jobs adds what it changed
 * to the counts of finished jobs ({@link FinishedCounts}) as its last write, in a shard
 * picked at random (the transaction may be the application's): the jobs cancelled are
 * counted after their update, the jobs retried or deleted from their rows locked before.
 */
public class JdbcJobAdminStore implements JobAdminStore {

	/** A job that has not started: pending, or waiting for other jobs. */
	private static final String CANCEL_UNSTARTED = """
			UPDATE {jobs} SET status = 'cancelled', finished_at = :now, waiting_for = 0
			WHERE id = :job_id AND status IN ('pending', 'waiting')
			""";

	/**
	 * A chain's unstarted steps, locked in id order first where the database locks rows
	 * (as the settle of dependencies locks waiting jobs), so a cancel of a chain and
	 * completions of its steps do not deadlock. The updates after the locks name the
	 * chain too: it leads them to jobs_chain_idx where the database does not use the list
	 * of ids for a lookup (MariaDB before 11.1, in an UPDATE).
	 */
	private static final String LOCK_CHAIN_UNSTARTED = """
			SELECT id FROM {jobs} WHERE chain_id = :chain_id AND status IN ('pending', 'waiting')
			ORDER BY id {for_update}
			""";

	private static final String CANCEL_CHAIN_UNSTARTED = """
			UPDATE {jobs} SET status = 'cancelled', finished_at = :now, waiting_for = 0, error_code = :error_code,
			    error_detail = 'its chain was cancelled'
			WHERE chain_id = :chain_id AND id {in_ids :ids} AND status IN ('pending', 'waiting')
			""";

	/**
	 * A chain's running steps: their workers stop them, and their success creates no
	 * continuation.
	 */
	private static final String LOCK_CHAIN_RUNNING = """
			SELECT id FROM {jobs} WHERE chain_id = :chain_id AND status = 'running' ORDER BY id {for_update}
			""";

	private static final String CANCEL_CHAIN_RUNNING = """
			UPDATE {jobs} SET cancel_requested = TRUE WHERE chain_id = :chain_id AND id {in_ids :ids} AND status = 'running'
			""";

	/** Asks the worker running the job, wherever it runs, to stop it. */
	private static final String REQUEST_CANCEL_RUNNING = """
			UPDATE {jobs} SET cancel_requested = TRUE
			WHERE id = :job_id AND status = 'running' AND NOT cancel_requested
			""";

	/** The finished jobs of {@code :ids} that a retry puts back, locked. */
	private static final String LOCK_RETRYABLE = """
			SELECT id, type, status FROM {jobs} WHERE id {in_ids :ids} AND status IN ('failed', 'cancelled')
			ORDER BY id {for_update}
			""";

	private static final String RETRY_FINISHED = """
			UPDATE {jobs}
			SET status = 'pending', attempts = 0, snoozes = 0, run_at = :now, finished_at = NULL, result = NULL,
			    cancel_requested = FALSE, lease_until = NULL
			WHERE id = :job_id AND status IN ('failed', 'cancelled')
			""";

	/** Whether an unfinished job other than {@code :job_id} holds a dedup key. */
	private static final String DEDUP_KEY_HELD = """
			SELECT 1 FROM {jobs} WHERE dedup_key = :dedup_key AND status IN ('pending', 'running') AND id <> :job_id
			""";

	/** Finished jobs, with their steps (ON DELETE CASCADE). */
	private static final String DELETE_JOBS = """
			DELETE FROM {jobs} WHERE id {in_ids :ids} AND status IN ('succeeded', 'failed', 'cancelled')
			""";

	/**
	 * The attempts and events of the finished jobs {@link #DELETE_JOBS} deletes next:
	 * PostgreSQL's history tables have no foreign key to cascade (its V8).
	 */
	private static final List<String> DELETE_HISTORY = List.of("""
			DELETE FROM {attempts} WHERE job_id IN (
			    SELECT id FROM {jobs} WHERE id {in_ids :ids} AND status IN ('succeeded', 'failed', 'cancelled'))
			""", """
			DELETE FROM {events} WHERE job_id IN (
			    SELECT id FROM {jobs} WHERE id {in_ids :ids} AND status IN ('succeeded', 'failed', 'cancelled'))
			""");

	private static final String LAST_JOB_ID = "SELECT coalesce(max(id), 0) FROM {jobs}";

	private static final String SELECT_JOB = "SELECT " + JobColumns.JOB + " FROM {jobs} WHERE id = :job_id";

	/** A chain's steps, from jobs_chain_idx. */
	private static final String SELECT_CHAIN = "SELECT " + JobColumns.JOB
			+ " FROM {jobs} WHERE chain_id = :chain_id ORDER BY chain_index, id";

	private static final String INSERT_PAUSED_TYPE = """
			INSERT INTO {paused} (type, paused_at, paused_by) VALUES (:type, :now, :actor)
			""";

	private static final String DELETE_PAUSED_TYPE = """
			DELETE FROM {paused} WHERE type = :type
			""";

	private static final String SELECT_PAUSED_TYPES = """
			SELECT type, paused_at FROM {paused} ORDER BY type
			""";

	/**
	 * Settles the jobs waiting for jobs that just finished, in the caller's transaction;
	 * see {@link Links#settle}.
	 */
	@FunctionalInterface
	public interface Settlement {

		/**
		 * @param changes where the jobs the settle ends are counted
		 */
		void settle(Connection connection, Map<Long, String> finished, String actor, Instant now,
				FinishedCounts.Changes changes) throws SQLException;

	}

	private final JdbcDatabase database;

	private final Tables tables;

	private final Dialect dialect;

	private final JobEvents events;

	private final Settlement settlement;

	private final ChangeNotifier notifier;

	private final JdbcSteps steps;

	private final String insertPausedType;

	private final BulkStatements bulk;

	private final FinishedCounts finishedCounts;

	/**
	 * @param settlement how jobs waiting for a cancelled job are settled (the store's
	 * links)
	 * @param notifier how other processes hear of cancels and retries
	 */
	public JdbcJobAdminStore(JdbcDatabase database, Tables tables, Settlement settlement, ChangeNotifier notifier) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.steps = new JdbcSteps(tables);
		this.settlement = Objects.requireNonNull(settlement, "'settlement' must not be null");
		this.notifier = Objects.requireNonNull(notifier, "'notifier' must not be null");
		this.dialect = tables.dialect();
		this.events = new JobEvents(tables);
		this.insertPausedType = this.dialect.insertUnlessPresent(INSERT_PAUSED_TYPE, "type");
		this.bulk = new BulkStatements(tables);
		this.finishedCounts = new FinishedCounts(tables);
		// Expanded and parsed now, so a fragment the dialect lacks fails at start-up.
		List.of(CANCEL_UNSTARTED, LOCK_CHAIN_UNSTARTED, CANCEL_CHAIN_UNSTARTED, LOCK_CHAIN_RUNNING,
				CANCEL_CHAIN_RUNNING, REQUEST_CANCEL_RUNNING, LOCK_RETRYABLE, RETRY_FINISHED, DEDUP_KEY_HELD,
				DELETE_JOBS, DELETE_HISTORY.get(0), DELETE_HISTORY.get(1), LAST_JOB_ID, SELECT_JOB, SELECT_CHAIN,
				this.insertPausedType, DELETE_PAUSED_TYPE, SELECT_PAUSED_TYPES)
			.forEach(tables::sql);
	}

	@Override
	public boolean cancel(long id, Instant now) {
		return cancel(id, now, () -> {
		});
	}

	@Override
	public boolean cancel(long id, Instant now, Runnable afterCommit) {
		return this.database.writeJoiningTransaction("cancel job " + id, (connection) -> {
			FinishedCounts.Changes changes = new FinishedCounts.Changes();
			boolean applied = !cancelUnstarted(connection, List.of(id), now, "cancelled before it ran", changes)
				.isEmpty()
					|| !requestCancel(connection, List.of(id), now, "running: the handler is interrupted").isEmpty();
			this.finishedCounts.add(connection, null, changes);
			return applied;
		}, ifApplied(afterCommit));
	}

	/**
	 * Cancels those of {@code ids} that are waiting or pending, with their events, and
	 * settles the jobs waiting for them.
	 * @param changes where the jobs cancelled and ended by the settle are counted
	 * @return the ids cancelled
	 */
	private List<Long> cancelUnstarted(Connection connection, List<Long> ids, Instant now, String detail,
			FinishedCounts.Changes changes) throws SQLException {
		List<Long> cancelled;
		try (SqlStatement cancel = sql(CANCEL_UNSTARTED).prepare(connection);
				SqlStatement event = this.events.prepare(connection)) {
			cancelled = eachApplied(cancel, ids, (statement, id) -> statement.bind("now", now).bind("job_id", id));
			for (long id : cancelled) {
				JobEvents.add(event, id, now, "CANCELLED", "api", detail);
			}
			if (!cancelled.isEmpty()) {
				event.executeBatch();
				this.finishedCounts.countAmong(connection, cancelled, 1, changes);
				Map<Long, String> finished = new LinkedHashMap<>();
				cancelled.forEach((id) -> finished.put(id, "cancelled"));
				this.settlement.settle(connection, finished, "api", now, changes);
			}
		}
		return cancelled;
	}

	/**
	 * Asks the workers of those of {@code ids} that run, and were not asked yet, to stop
	 * them, with their events, and tells other processes.
	 * @return the ids asked for
	 */
	private List<Long> requestCancel(Connection connection, List<Long> ids, Instant now, String detail)
			throws SQLException {
		List<Long> requested;
		try (SqlStatement request = sql(REQUEST_CANCEL_RUNNING).prepare(connection);
				SqlStatement event = this.events.prepare(connection)) {
			requested = eachApplied(request, ids, (statement, id) -> statement.bind("job_id", id));
			for (long id : requested) {
				JobEvents.add(event, id, now, "CANCEL_REQUESTED", "api", detail);
			}
			if (!requested.isEmpty()) {
				this.notifier.cancelRequested(connection, requested);
				event.executeBatch();
			}
		}
		return requested;
	}

	/** Binds a statement's parameters for one job. */
	@FunctionalInterface
	private interface JobBinding {

		void bind(SqlStatement statement, long id) throws SQLException;

	}

	/**
	 * Runs an update once per job, as one JDBC batch (one round trip to a server) for
	 * several jobs.
	 * @return the ids it changed, in the order given
	 */
	private static List<Long> eachApplied(SqlStatement update, List<Long> ids, JobBinding binding) throws SQLException {
		List<Long> applied = new ArrayList<>();
		if (ids.size() == 1) {
			binding.bind(update, ids.get(0));
			if (update.executeUpdate() > 0) {
				applied.add(ids.get(0));
			}
			return applied;
		}
		for (long id : ids) {
			binding.bind(update, id);
			update.addBatch();
		}
		int[] counts = update.executeBatch();
		for (int i = 0; i < ids.size(); i++) {
			// A driver that does not count a batch's rows: the batch ran on rows this
			// transaction locked after checking them, so each applied.
			if (counts[i] > 0 || counts[i] == Statement.SUCCESS_NO_INFO) {
				applied.add(ids.get(i));
			}
		}
		return applied;
	}

	@Override
	public boolean retry(long id, Instant now) {
		return retry(id, now, () -> {
		});
	}

	@Override
	public boolean retry(long id, Instant now, Runnable afterCommit) {
		return retry(id, now, false, afterCommit);
	}

	@Override
	public boolean retry(long id, Instant now, boolean forgetSteps, Runnable afterCommit) {
		try {
			return this.database.writeJoiningTransaction("retry job " + id, (connection) -> {
				FinishedCounts.Changes changes = new FinishedCounts.Changes();
				boolean retried = !retryFinished(connection, lockRetryable(connection, List.of(id)), now, forgetSteps,
						"", changes)
					.isEmpty();
				this.finishedCounts.add(connection, null, changes);
				return retried;
			}, ifApplied(afterCommit));
		}
		catch (JobQueueException ex) {
			if (ex.getCause() instanceof SQLException sql && this.dialect.isUniqueViolation(sql)) {
				throw new JobQueueException("Job " + id + " cannot be retried: another unfinished job has the same "
						+ "dedup key. Let that job finish or cancel it first.", ex);
			}
			throw ex;
		}
	}

	/**
	 * Those of {@code ids} that a retry puts back (failed or cancelled), locked where the
	 * database locks rows, with their type and status.
	 * @return id → {type, status}, in id order
	 */
	private Map<Long, String[]> lockRetryable(Connection connection, List<Long> ids) throws SQLException {
		Map<Long, String[]> retryable = new LinkedHashMap<>();
		try (SqlStatement lock = sql(LOCK_RETRYABLE).prepare(connection);
				ResultSet rows = lock.bindIds("ids", ids).executeQuery()) {
			while (rows.next()) {
				retryable.put(rows.getLong(1), new String[] { rows.getString(2), rows.getString(3) });
			}
		}
		return retryable;
	}

	/**
	 * Puts jobs that failed or were cancelled back to pending, with their events, and
	 * tells other processes.
	 * @param retryable the jobs to retry, locked by this transaction: id → {type, status}
	 * @param note added to each event's detail
	 * @param changes where the jobs retried are counted off
	 * @return the ids retried
	 */
	private List<Long> retryFinished(Connection connection, Map<Long, String[]> retryable, Instant now,
			boolean forgetSteps, String note, FinishedCounts.Changes changes) throws SQLException {
		if (retryable.isEmpty()) {
			return List.of();
		}
		List<Long> retried;
		try (SqlStatement retry = sql(RETRY_FINISHED).prepare(connection);
				SqlStatement event = this.events.prepare(connection)) {
			retried = eachApplied(retry, List.copyOf(retryable.keySet()),
					(statement, id) -> statement.bind("now", now).bind("job_id", id));
			for (long id : retried) {
				String[] was = retryable.get(id);
				changes.unfinished(was[0], was[1]);
				int forgotten = forgetSteps ? this.steps.delete(connection, id) : 0;
				JobEvents.add(event, id, now, "RETRIED", "api", "back to pending with a fresh set of attempts"
						+ ((forgotten > 0) ? ", its " + forgotten + " recorded step(s) forgotten" : "") + note);
			}
			if (!retried.isEmpty()) {
				this.notifier.jobsDue(connection);
				event.executeBatch();
			}
		}
		return retried;
	}

	@Override
	public long countForBulk(BulkAction action, JobFilter filter) {
		return this.database.read("count the jobs of a bulk " + action.word(), (connection) -> {
			try (SqlStatement count = this.bulk.count(action, filter).prepare(connection)) {
				return BulkStatements.bind(count, filter).queryLong();
			}
		});
	}

	@Override
	public long lastJobId() {
		return this.database.read("read the last job id", (connection) -> {
			try (SqlStatement select = sql(LAST_JOB_ID).prepare(connection)) {
				return select.queryLong();
			}
		});
	}

	@Override
	public List<Long> selectForBulk(BulkAction action, JobFilter filter, long afterId, long throughId, int limit) {
		return this.database.read("select the jobs of a bulk " + action.word(), (connection) -> {
			try (SqlStatement select = this.bulk.select(action, filter).prepare(connection)) {
				BulkStatements.bind(select, filter)
					.bind("after", afterId)
					.bind("through", throughId)
					.bind("limit", limit);
				return ids(select.executeQuery());
			}
		});
	}

	@Override
	public List<Long> applyBulk(BulkAction action, JobFilter filter, List<Long> ids, Instant now) {
		if (ids.isEmpty()) {
			return List.of();
		}
		return this.database.write("bulk " + action.word() + " of " + ids.size() + " job(s)", (connection) -> {
			List<Long> matching = new ArrayList<>();
			Set<Long> running = new LinkedHashSet<>();
			Map<Long, String> dedupKeys = new LinkedHashMap<>();
			Map<Long, String[]> typeAndStatus = new LinkedHashMap<>();
			try (SqlStatement lock = this.bulk.lock(action, filter).prepare(connection)) {
				try (ResultSet rows = BulkStatements.bind(lock, filter).bindIds("ids", ids).executeQuery()) {
					while (rows.next()) {
						long id = rows.getLong(1);
						matching.add(id);
						typeAndStatus.put(id, new String[] { rows.getString(4), rows.getString(2) });
						if ("running".equals(rows.getString(2))) {
							running.add(id);
						}
						if (rows.getString(3) != null) {
							dedupKeys.put(id, rows.getString(3));
						}
					}
				}
			}
			FinishedCounts.Changes changes = new FinishedCounts.Changes();
			List<Long> changed = switch (action) {
				case RETRY -> {
					Map<Long, String[]> retryable = new LinkedHashMap<>();
					withoutHeldDedupKeys(connection, matching, dedupKeys)
						.forEach((id) -> retryable.put(id, typeAndStatus.get(id)));
					yield retryFinished(connection, retryable, now, false, " (bulk retry)", changes);
				}
				case CANCEL -> {
					List<Long> unstarted = new ArrayList<>(matching);
					unstarted.removeAll(running);
					List<Long> cancelled = new ArrayList<>(cancelUnstarted(connection, unstarted, now,
							"cancelled before it ran (bulk cancel)", changes));
					cancelled.addAll(requestCancel(connection, List.copyOf(running), now,
							"running: the handler is interrupted (bulk cancel)"));
					cancelled.sort(null);
					yield cancelled;
				}
				case DELETE -> {
					matching.forEach((id) -> changes.unfinished(typeAndStatus.get(id)[0], typeAndStatus.get(id)[1]));
					yield delete(connection, matching);
				}
			};
			this.finishedCounts.add(connection, null, changes);
			return changed;
		});
	}

	/**
	 * {@code ids} but those whose dedup key an unfinished job holds, or an earlier job of
	 * the same batch will hold once retried: their retry would break the key's
	 * uniqueness.
	 */
	private List<Long> withoutHeldDedupKeys(Connection connection, List<Long> ids, Map<Long, String> dedupKeys)
			throws SQLException {
		if (dedupKeys.isEmpty()) {
			return ids;
		}
		List<Long> free = new ArrayList<>();
		Set<String> taken = new HashSet<>();
		try (SqlStatement held = sql(DEDUP_KEY_HELD).prepare(connection)) {
			for (long id : ids) {
				String key = dedupKeys.get(id);
				if (key == null) {
					free.add(id);
				}
				else if (taken.add(key) && !held.bind("dedup_key", key).bind("job_id", id).queryAny()) {
					free.add(id);
				}
			}
		}
		return free;
	}

	private List<Long> delete(Connection connection, List<Long> ids) throws SQLException {
		if (ids.isEmpty()) {
			return List.of();
		}
		for (String history : DELETE_HISTORY) {
			try (SqlStatement delete = sql(history).prepare(connection)) {
				delete.bindIds("ids", ids).executeUpdate();
			}
		}
		try (SqlStatement delete = sql(DELETE_JOBS).prepare(connection)) {
			delete.bindIds("ids", ids).executeUpdate();
		}
		return ids;
	}

	private static List<Long> ids(ResultSet rows) throws SQLException {
		try (rows) {
			List<Long> ids = new ArrayList<>();
			while (rows.next()) {
				ids.add(rows.getLong(1));
			}
			return ids;
		}
	}

	@Override
	public Optional<Job> find(long id) {
		return this.database.read("read job " + id, (connection) -> {
			try (SqlStatement select = sql(SELECT_JOB).prepare(connection);
					ResultSet rows = select.bind("job_id", id).executeQuery()) {
				return rows.next() ? Optional.of(JobColumns.job(rows, this.dialect)) : Optional.empty();
			}
		});
	}

	@Override
	public List<Long> cancelChain(long chainId, Instant now) {
		return this.database.writeJoiningTransaction("cancel chain " + chainId, (connection) -> {
			List<Long> steps = new ArrayList<>();
			Map<Long, String> cancelled = new LinkedHashMap<>();
			List<Long> running = new ArrayList<>();
			FinishedCounts.Changes changes = new FinishedCounts.Changes();
			try (SqlStatement event = this.events.prepare(connection)) {
				for (long id : lockSteps(connection, LOCK_CHAIN_UNSTARTED, chainId)) {
					steps.add(id);
					cancelled.put(id, "cancelled");
					JobEvents.add(event, id, now, "CANCELLED", "api", "chain " + chainId + " cancelled");
				}
				if (!cancelled.isEmpty()) {
					try (SqlStatement cancel = sql(CANCEL_CHAIN_UNSTARTED).prepare(connection)) {
						cancel.bind("now", now)
							.bind("chain_id", chainId)
							.bind("error_code", ErrorCodes.CANCELLED_CHAIN)
							.bindIds("ids", cancelled.keySet())
							.executeUpdate();
					}
					this.finishedCounts.countAmong(connection, cancelled.keySet(), 1, changes);
				}
				running.addAll(lockSteps(connection, LOCK_CHAIN_RUNNING, chainId));
				for (long id : running) {
					steps.add(id);
					JobEvents.add(event, id, now, "CANCEL_REQUESTED", "api",
							"chain " + chainId + " cancelled: the handler is interrupted");
				}
				if (!running.isEmpty()) {
					try (SqlStatement request = sql(CANCEL_CHAIN_RUNNING).prepare(connection)) {
						request.bind("chain_id", chainId).bindIds("ids", running).executeUpdate();
					}
				}
				event.executeBatch();
			}
			if (!running.isEmpty()) {
				this.notifier.cancelRequested(connection, running);
			}
			if (!cancelled.isEmpty()) {
				this.settlement.settle(connection, cancelled, "api", now, changes);
			}
			this.finishedCounts.add(connection, null, changes);
			steps.sort(null);
			return steps;
		}, (steps) -> {
		});
	}

	@Override
	public List<Job> findChain(long chainId) {
		return this.database.read("read chain " + chainId, (connection) -> {
			List<Job> steps = new ArrayList<>();
			try (SqlStatement select = sql(SELECT_CHAIN).prepare(connection);
					ResultSet rows = select.bind("chain_id", chainId).executeQuery()) {
				while (rows.next()) {
					steps.add(JobColumns.job(rows, this.dialect));
				}
			}
			return steps;
		});
	}

	@Override
	public boolean pause(String type, String actor, Instant now) {
		return this.database.writeJoiningTransaction("pause job type '" + type + "'", (connection) -> {
			try (SqlStatement insert = sql(this.insertPausedType).prepare(connection)) {
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
			try (SqlStatement delete = sql(DELETE_PAUSED_TYPE).prepare(connection)) {
				return delete.bind("type", type).executeUpdate() == 1;
			}
		}, ifApplied(afterCommit));
	}

	@Override
	public List<PausedType> pausedTypes() {
		return this.database.read("read paused job types", (connection) -> {
			List<PausedType> paused = new ArrayList<>();
			try (SqlStatement select = sql(SELECT_PAUSED_TYPES).prepare(connection);
					ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					paused.add(new PausedType(rows.getString(1), this.dialect.instant(rows, 2)));
				}
			}
			return paused;
		});
	}

	/** Runs {@code afterCommit} only when the write changed something. */
	private static Consumer<Boolean> ifApplied(Runnable afterCommit) {
		return (applied) -> {
			if (applied) {
				afterCommit.run();
			}
		};
	}

	/**
	 * The ids of a chain's steps that {@code lock} selects, locked until the transaction
	 * ends, so the update after it changes exactly these.
	 */
	private List<Long> lockSteps(Connection connection, String lock, long chainId) throws SQLException {
		List<Long> ids = new ArrayList<>();
		try (SqlStatement select = sql(lock).prepare(connection);
				ResultSet rows = select.bind("chain_id", chainId).executeQuery()) {
			while (rows.next()) {
				ids.add(rows.getLong(1));
			}
		}
		return ids;
	}

	private Sql sql(String template) {
		return this.tables.sql(template);
	}

}
