package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.jdbc.FinishedCounts;
import dev.jobqueue.jdbc.RowLinks;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * Chains and dependencies on MySQL (docs/chains.md), inside a transaction the caller
 * holds. Linked jobs go in a row at a time ({@link RowLinks}), each id the driver's
 * generated key; the settle of finished jobs locks what it changes, then writes what it
 * computed from the locked rows.
 *
 * <p>
 * Concurrency, as on PostgreSQL:
 * <ul>
 * <li>An enqueue locks the jobs it waits for in share mode before it reads their status:
 * a completion of one of them either committed before (the lock waits for it) or waits
 * for the enqueue to commit, and its settle then sees the new dependency row.</li>
 * <li>The settle locks the finished jobs' unsettled dependency rows, marks them settled,
 * then locks the waiting jobs in id order before it updates them: two transactions
 * finishing children of one join update its row one after the other, the second reading
 * what the first wrote, and batches settling overlapping joins lock in one order.</li>
 * </ul>
 */
final class MysqlLinks extends RowLinks {

	/** The dependency rows the finished jobs have yet to settle, locked. */
	static final String LOCK_UNSETTLED = """
			SELECT depends_on, job_id FROM {dependencies}
			WHERE depends_on {in_ids :ids} AND NOT settled
			ORDER BY depends_on, job_id
			FOR UPDATE
			""";

	static final String MARK_SETTLED = """
			UPDATE {dependencies} d JOIN {id_table :ids} f ON d.depends_on = f.id SET d.settled = TRUE WHERE NOT d.settled
			""";

	/** The jobs that still wait, locked in id order. */
	static final String LOCK_WAITING = """
			SELECT id, waiting_for, dependency_policy, run_at, type FROM {jobs}
			WHERE id {in_ids :ids} AND status = 'waiting'
			ORDER BY id
			FOR UPDATE
			""";

	static final String UPDATE_WAITING = """
			UPDATE {jobs} SET status = :status, waiting_for = :waiting_for, run_at = :run_at,
			    finished_at = coalesce(:finished_at, finished_at), error_code = coalesce(:error_code, error_code),
			    error_detail = coalesce(:error_detail, error_detail)
			WHERE id = :job_id
			""";

	private final Sql lockUnsettled;

	private final Sql markSettled;

	private final Sql lockWaiting;

	private final Sql updateWaiting;

	MysqlLinks(Tables tables, JobEvents events) {
		super(tables, events, RowLinks.INSERT_LINKED);
		this.lockUnsettled = tables.sql(LOCK_UNSETTLED);
		this.markSettled = tables.sql(MARK_SETTLED);
		this.lockWaiting = tables.sql(LOCK_WAITING);
		this.updateWaiting = tables.sql(UPDATE_WAITING);
	}

	/** The row's id is the driver's generated key. */
	@Override
	protected long insertRow(SqlStatement insert) throws SQLException {
		return insert.executeInsert();
	}

	/**
	 * Settles the jobs waiting for jobs that just finished, a round at a time: the jobs a
	 * round ends by their policy are settled in the next. A success counts down; a
	 * failure or cancel counts down under policy {@code run} and otherwise ends the job
	 * ({@code fail} → failed, else cancelled). A job left with nothing to wait for turns
	 * pending, due no earlier than now (waiting is not lateness).
	 * @param changes where the jobs it ends are counted
	 * @return how many jobs turned pending
	 */
	@Override
	public int settle(Connection connection, Map<Long, String> finished, String actor, Instant now,
			FinishedCounts.Changes changes) throws SQLException {
		try (SqlStatement event = events().prepare(connection)) {
			SettleRounds rounds = new SettleRounds(event, finished, changes, actor, now);
			while (rounds.next()) {
				Map<Long, Counted> waiting = lockUnsettled(connection, rounds.finished());
				if (waiting.isEmpty()) {
					break;
				}
				try (SqlStatement lock = this.lockWaiting.prepare(connection);
						SqlStatement update = this.updateWaiting.prepare(connection);
						ResultSet rows = lock.bindIds("ids", waiting.keySet()).executeQuery()) {
					while (rows.next()) {
						long id = rows.getLong(1);
						Counted counted = waiting.get(id);
						String status = counted.settle(update, id, rows.getInt(2), rows.getString(3), rows.getLong(4),
								now);
						update.executeUpdate();
						rounds.settled(id, rows.getString(5), status, counted.culprit());
					}
				}
			}
			event.executeBatch();
			return rounds.turnedPending();
		}
	}

	/**
	 * Locks and marks settled the dependency rows of the finished jobs of a round.
	 * @return per waiting job, what finished of what it waits for
	 */
	private Map<Long, Counted> lockUnsettled(Connection connection, Map<Long, String> round) throws SQLException {
		Map<Long, Counted> waiting = new LinkedHashMap<>();
		try (SqlStatement lock = this.lockUnsettled.prepare(connection);
				ResultSet rows = lock.bindIds("ids", round.keySet()).executeQuery()) {
			while (rows.next()) {
				long dependency = rows.getLong(1);
				waiting.computeIfAbsent(rows.getLong(2), (id) -> new Counted()).add(dependency, round.get(dependency));
			}
		}
		if (!waiting.isEmpty()) {
			try (SqlStatement mark = this.markSettled.prepare(connection)) {
				mark.bindIds("ids", round.keySet()).executeUpdate();
			}
		}
		return waiting;
	}

	/** What finished, of the jobs one waiting job waits for, in one round. */
	private static final class Counted {

		int succeeded;

		int failed;

		int unsuccessful;

		Long firstFailed;

		Long firstUnsuccessful;

		void add(long dependency, String status) {
			if ("succeeded".equals(status)) {
				this.succeeded++;
				return;
			}
			this.unsuccessful++;
			this.firstUnsuccessful = (this.firstUnsuccessful == null) ? dependency
					: Math.min(this.firstUnsuccessful, dependency);
			if ("failed".equals(status)) {
				this.failed++;
				this.firstFailed = (this.firstFailed == null) ? dependency : Math.min(this.firstFailed, dependency);
			}
		}

		/** The dependency named when a failure ends the job: the first that failed. */
		Long culprit() {
			return (this.firstFailed != null) ? this.firstFailed : this.firstUnsuccessful;
		}

		/**
		 * Binds the waiting job's new state to {@code update}.
		 * @return its new status
		 */
		String settle(SqlStatement update, long id, int waitingFor, String policy, long runAt, Instant now)
				throws SQLException {
			update.bind("job_id", id);
			if (this.unsuccessful > 0 && !"run".equals(policy)) {
				String status = "fail".equals(policy) ? "failed" : "cancelled";
				String ended = (this.failed > 0) ? "failed" : "cancelled";
				update.bind("status", status)
					.bind("waiting_for", 0)
					.bind("run_at", Instant.ofEpochMilli(runAt))
					.bind("finished_at", now)
					.bind("error_code",
							(this.failed > 0) ? ErrorCodes.DEPENDENCY_FAILED_FAILED
									: ErrorCodes.DEPENDENCY_FAILED_CANCELLED)
					.bind("error_detail", "Job " + culprit() + ", which it waited for, ended " + ended);
				return status;
			}
			int counted = this.succeeded + ("run".equals(policy) ? this.unsuccessful : 0);
			boolean met = waitingFor <= counted;
			update.bind("status", met ? "pending" : "waiting")
				.bind("waiting_for", Math.max(0, waitingFor - counted))
				.bind("run_at", Instant.ofEpochMilli(met ? Math.max(runAt, now.toEpochMilli()) : runAt))
				.bind("finished_at", (Instant) null)
				.bind("error_code", (String) null)
				.bind("error_detail", (String) null);
			return met ? "pending" : "waiting";
		}

	}

}
