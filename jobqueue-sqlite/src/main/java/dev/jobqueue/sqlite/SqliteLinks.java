package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.LinkedJobs;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.jdbc.JsonArrays;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.JdbcLinks;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * Chains and dependencies on SQLite (docs/chains.md), inside a write transaction the
 * caller holds: jobs that wait or belong to a chain go in here, a success's continuation
 * joins its chain here, and every path that finishes a job calls {@link #settle} so the
 * jobs waiting for it count down, become pending, or end by their policy, in the same
 * transaction.
 */
final class SqliteLinks extends JdbcLinks {

	private static final String SELECT_EXISTING = """
			SELECT id, status FROM {jobs} WHERE id IN (SELECT value FROM json_each(:ids))
			""";

	private static final String INSERT_LINKED = """
			INSERT INTO {jobs} (type, status, priority, payload, max_attempts, run_at, created_at, trace_parent,
			    chain_id, chain_index, waiting_for, dependency_policy, finished_at, error_code, error_detail)
			VALUES (:type, :status, :priority, :payload, :max_attempts, :run_at, :now, :trace_parent,
			    :chain_id, :chain_index, :waiting_for, :dependency_policy, :finished_at, :error_code, :error_detail)
			RETURNING id
			""";

	/** The first step of a new chain names the chain after itself. */
	private static final String START_CHAIN = """
			UPDATE {jobs} SET chain_id = id WHERE id = :job_id
			""";

	private static final String INSERT_DEPENDENCY = """
			INSERT OR IGNORE INTO {dependencies} (depends_on, job_id, settled) VALUES (:depends_on, :job_id, :settled)
			""";

	/** Finished jobs that some job still has to count. */
	static final String ANY_DEPENDENTS = """
			SELECT DISTINCT depends_on FROM {dependencies}
			WHERE depends_on IN (SELECT value FROM json_each(:ids)) AND settled = 0
			""";

	/**
	 * The fan-in statement: one probe of the dependency table's primary key, one update
	 * per waiting job. {@code :any_policy} is 1 when the finished job succeeded (every
	 * dependent counts down), 0 when it failed or was cancelled (only policy
	 * {@code run}). A job turning pending is due no earlier than now: waiting is not
	 * lateness. Only rows not yet settled count: a dependency that was retried after it
	 * finished, and finished again, was counted the first time.
	 */
	static final String COUNT_DOWN = """
			UPDATE {jobs}
			SET waiting_for = waiting_for - 1,
			    status = CASE WHEN waiting_for <= 1 THEN 'pending' ELSE status END,
			    run_at = CASE WHEN waiting_for <= 1 AND run_at < :now THEN :now ELSE run_at END
			WHERE status = 'waiting'
			  AND id IN (SELECT job_id FROM {dependencies} WHERE depends_on = :finished AND settled = 0)
			  AND (:any_policy = 1 OR dependency_policy = 'run')
			RETURNING id, status
			""";

	static final String END_BY_POLICY = """
			UPDATE {jobs}
			SET status = CASE dependency_policy WHEN 'fail' THEN 'failed' ELSE 'cancelled' END,
			    waiting_for = 0, finished_at = :now, error_code = :error_code, error_detail = :error_detail
			WHERE status = 'waiting' AND dependency_policy IN ('cancel', 'fail')
			  AND id IN (SELECT job_id FROM {dependencies} WHERE depends_on = :finished AND settled = 0)
			RETURNING id, status
			""";

	/**
	 * After the two statements above, in the same transaction: every job waiting for the
	 * finished job has counted it, ended by it, or no longer waits, so none may count it
	 * again. SQLite updates one table per statement; the write transaction makes the
	 * three one step.
	 */
	static final String MARK_SETTLED = """
			UPDATE {dependencies} SET settled = 1 WHERE depends_on = :finished AND settled = 0
			""";

	private final Tables tables;

	private final Sql selectExisting;

	private final Sql insertLinked;

	private final Sql startChain;

	private final Sql insertDependency;

	private final Sql anyDependents;

	private final Sql countDown;

	private final Sql endByPolicy;

	private final Sql markSettled;

	SqliteLinks(Tables tables, JobEvents events) {
		super(tables, events);
		this.tables = tables;
		this.selectExisting = tables.sql(SELECT_EXISTING);
		this.insertLinked = tables.sql(INSERT_LINKED);
		this.startChain = tables.sql(START_CHAIN);
		this.insertDependency = tables.sql(INSERT_DEPENDENCY);
		this.anyDependents = tables.sql(ANY_DEPENDENTS);
		this.countDown = tables.sql(COUNT_DOWN);
		this.endByPolicy = tables.sql(END_BY_POLICY);
		this.markSettled = tables.sql(MARK_SETTLED);
	}

	/**
	 * @param chainId the chain the jobs with a chain index join, or {@code null} to start
	 * one named after the first of them
	 * @param chainBase added to each job's chain index
	 */
	@Override
	protected List<Long> insert(Connection connection, List<NewJob> jobs, Instant now, Long chainId, int chainBase)
			throws SQLException {
		LinkedJobs.refuseDedupKeys(jobs);
		Map<Long, String> existing = existingStatuses(connection, jobs);
		List<Long> ids = new ArrayList<>(jobs.size());
		List<String> statuses = new ArrayList<>(jobs.size());
		Long chain = chainId;
		try (SqlStatement insert = this.insertLinked.prepare(connection);
				SqlStatement dependency = this.insertDependency.prepare(connection);
				SqlStatement event = events().prepare(connection)) {
			for (NewJob job : jobs) {
				Map<Long, String> dependencyStatus = new LinkedHashMap<>();
				for (long id : job.after()) {
					dependencyStatus.put(id, existing.get(id));
				}
				for (int position : job.afterInBatch()) {
					dependencyStatus.putIfAbsent(ids.get(position), statuses.get(position));
				}
				Set<Long> waitsFor = dependencyStatus.keySet();
				LinkedJobs.Start outcome = LinkedJobs.start(job.dependencyPolicy(), dependencyStatus.values());
				insert.bind("type", job.type())
					.bind("status", outcome.status())
					.bind("priority", job.priority())
					.bind("payload", job.payload())
					.bind("max_attempts", job.maxAttempts())
					.bind("run_at", job.runAt())
					.bind("now", now)
					.bind("trace_parent", job.traceContext())
					.bind("chain_id", (job.chainIndex() != null) ? chain : null)
					.bind("chain_index", (job.chainIndex() != null) ? Long.valueOf(chainBase + job.chainIndex()) : null)
					.bind("waiting_for", outcome.waitingFor())
					.bind("dependency_policy", waitsFor.isEmpty() ? null : job.dependencyPolicy().dbValue())
					.bind("finished_at", outcome.finished() ? now : null)
					.bind("error_code", outcome.errorCode())
					.bind("error_detail", outcome.errorDetail());
				long id = insert.queryLong();
				if (job.chainIndex() != null && chain == null) {
					chain = id;
					try (SqlStatement start = this.startChain.prepare(connection)) {
						start.bind("job_id", id).executeUpdate();
					}
				}
				for (Map.Entry<Long, String> waited : dependencyStatus.entrySet()) {
					// A dependency finished already is counted now, by the outcome above.
					dependency.bind("depends_on", waited.getKey())
						.bind("job_id", id)
						.bind("settled", LinkedJobs.finished(waited.getValue()))
						.addBatch();
				}
				ids.add(id);
				statuses.add(outcome.status());
				JobEvents.add(event, id, now, "ENQUEUED", null,
						waitsFor.isEmpty() ? null : "waits for " + waitsFor.size() + " job(s)");
				if (outcome.finished()) {
					JobEvents.add(event, id, now, "DEPENDENCY_FAILED", null, outcome.errorDetail());
					JobEvents.add(event, id, now, "failed".equals(outcome.status()) ? "FAILED" : "CANCELLED", null,
							outcome.errorCode());
				}
			}
			dependency.executeBatch();
			event.executeBatch();
		}
		return ids;
	}

	private Map<Long, String> existingStatuses(Connection connection, List<NewJob> jobs) throws SQLException {
		Set<Long> wanted = new TreeSet<>();
		jobs.forEach((job) -> wanted.addAll(job.after()));
		Map<Long, String> found = new HashMap<>();
		if (wanted.isEmpty()) {
			return found;
		}
		try (SqlStatement select = this.selectExisting.prepare(connection)) {
			try (ResultSet rows = select.bind("ids", JsonArrays.of(wanted)).executeQuery()) {
				while (rows.next()) {
					found.put(rows.getLong(1), rows.getString(2));
				}
			}
		}
		wanted.removeAll(found.keySet());
		if (!wanted.isEmpty()) {
			throw new JobQueueException("Cannot wait for job(s) " + wanted + ": no such job in this queue (tables "
					+ this.tables.jobs() + "). Pass ids that enqueue returned for this queue (a job of another table "
					+ "prefix is not one of its jobs, and a deleted job is gone); nothing was enqueued.");
		}
		return found;
	}

	/**
	 * Settles the jobs waiting for jobs that just finished: counts them down, turns those
	 * with nothing left to wait for pending, and ends those a failure ends by their
	 * policy (then settles the jobs waiting for those in turn).
	 * @param finished job id → its final status ({@code succeeded}, {@code failed},
	 * {@code cancelled})
	 */
	@Override
	public int settle(Connection connection, Map<Long, String> finished, String actor, Instant now)
			throws SQLException {
		if (finished.isEmpty()) {
			return 0;
		}
		Deque<Map.Entry<Long, String>> work = new ArrayDeque<>();
		try (SqlStatement any = this.anyDependents.prepare(connection);
				ResultSet rows = any.bind("ids", JsonArrays.of(finished.keySet())).executeQuery()) {
			while (rows.next()) {
				long id = rows.getLong(1);
				work.add(Map.entry(id, finished.get(id)));
			}
		}
		if (work.isEmpty()) {
			return 0;
		}
		int turnedPending = 0;
		try (SqlStatement down = this.countDown.prepare(connection);
				SqlStatement end = this.endByPolicy.prepare(connection);
				SqlStatement mark = this.markSettled.prepare(connection);
				SqlStatement event = events().prepare(connection)) {
			while (!work.isEmpty()) {
				Map.Entry<Long, String> next = work.poll();
				long id = next.getKey();
				boolean succeeded = "succeeded".equals(next.getValue());
				down.bind("now", now).bind("finished", id).bind("any_policy", succeeded);
				try (ResultSet rows = down.executeQuery()) {
					while (rows.next()) {
						if ("pending".equals(rows.getString(2))) {
							turnedPending++;
							JobEvents.add(event, rows.getLong(1), now, "DEPENDENCIES_MET", actor,
									"the last job it waited for (" + id + ") finished");
						}
					}
				}
				if (succeeded) {
					mark.bind("finished", id).executeUpdate();
					continue;
				}
				boolean failed = "failed".equals(next.getValue());
				end.bind("now", now)
					.bind("finished", id)
					.bind("error_code",
							failed ? ErrorCodes.DEPENDENCY_FAILED_FAILED : ErrorCodes.DEPENDENCY_FAILED_CANCELLED)
					.bind("error_detail", "Job " + id + ", which it waited for, ended " + next.getValue());
				try (ResultSet rows = end.executeQuery()) {
					while (rows.next()) {
						long ended = rows.getLong(1);
						String status = rows.getString(2);
						JobEvents.add(event, ended, now, "DEPENDENCY_FAILED", actor,
								"job " + id + " ended " + next.getValue());
						JobEvents.add(event, ended, now, "failed".equals(status) ? "FAILED" : "CANCELLED", actor,
								failed ? ErrorCodes.DEPENDENCY_FAILED_FAILED : ErrorCodes.DEPENDENCY_FAILED_CANCELLED);
						work.add(Map.entry(ended, status));
					}
				}
				mark.bind("finished", id).executeUpdate();
			}
			event.executeBatch();
		}
		return turnedPending;
	}

}
