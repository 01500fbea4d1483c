package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.jdbc.FinishedCounts;
import dev.jobqueue.jdbc.JsonArrays;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.RowLinks;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * Chains and dependencies on SQLite (docs/chains.md), inside a write transaction the
 * caller holds: jobs that wait or belong to a chain go in a row at a time
 * ({@link RowLinks}), a success's continuation joins its chain, and every path that
 * finishes a job calls {@link #settle} so the jobs waiting for it count down, become
 * pending, or end by their policy, in the same transaction.
 */
final class SqliteLinks extends RowLinks {

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
			RETURNING id, status, type
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

	private final Sql anyDependents;

	private final Sql countDown;

	private final Sql endByPolicy;

	private final Sql markSettled;

	SqliteLinks(Tables tables, JobEvents events) {
		super(tables, events, RowLinks.INSERT_LINKED + "RETURNING id\n");
		this.tables = tables;
		this.anyDependents = tables.sql(ANY_DEPENDENTS);
		this.countDown = tables.sql(COUNT_DOWN);
		this.endByPolicy = tables.sql(END_BY_POLICY);
		this.markSettled = tables.sql(MARK_SETTLED);
	}

	@Override
	protected long insertRow(SqlStatement insert) throws SQLException {
		return insert.queryLong();
	}

	/**
	 * Settles the jobs waiting for jobs that just finished: counts them down, turns those
	 * with nothing left to wait for pending, and ends those a failure ends by their
	 * policy (then settles the jobs waiting for those in turn).
	 * @param finished job id → its final status ({@code succeeded}, {@code failed},
	 * {@code cancelled})
	 * @param changes where the jobs it ends are counted
	 */
	@Override
	public int settle(Connection connection, Map<Long, String> finished, String actor, Instant now,
			FinishedCounts.Changes changes) throws SQLException {
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
						changes.finished(rows.getString(3), status);
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
