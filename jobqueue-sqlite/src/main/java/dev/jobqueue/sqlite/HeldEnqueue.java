package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.jdbc.CallerTransactions;
import dev.jobqueue.jdbc.FinishedCounts;

/**
 * Enqueues inside a caller's transaction on another database, so the job runs only if
 * that transaction commits.
 *
 * <ol>
 * <li>In one queue transaction, the jobs are inserted as usual (dedup keys are checked,
 * ids assigned, the {@code ENQUEUED} events written), then held: their {@code run_at}
 * moves to a time that never comes and the requested due time waits in
 * {@code held_run_at}. No claim ever sees them.</li>
 * <li>When the caller's transaction commits, one update gives them back their due time
 * and wakes the worker.</li>
 * <li>When it rolls back, the held jobs are deleted (their events go with them).</li>
 * </ol>
 * A job matched by dedup key is another job that is already visible: it is neither held
 * nor deleted.
 * <p>
 * The window this leaves: if the process dies after the caller's commit and before step
 * 2, the jobs stay held (not lost, not run) until released by hand; see the README's
 * "Transactions" section.
 */
final class HeldEnqueue {

	/** A {@code run_at} no clock reaches. */
	static final long NEVER = Long.MAX_VALUE;

	private static final Logger logger = LoggerFactory.getLogger(HeldEnqueue.class);

	private static final String LAST_JOB_ID = """
			SELECT coalesce(max(id), 0) FROM {jobs}
			""";

	/** New rows have ids above the last one seen in the same write transaction. */
	private static final String HOLD_NEW_JOBS = """
			UPDATE {jobs} SET held_run_at = run_at, run_at = ? WHERE id > ?
			""";

	private static final String RELEASE_HELD = """
			UPDATE {jobs} SET run_at = held_run_at, held_run_at = NULL
			WHERE id IN (SELECT value FROM json_each(?)) AND held_run_at IS NOT NULL
			""";

	/**
	 * Each job deleted, to be counted off the finished jobs: a held job may have gone in
	 * finished (it waits for a job that failed), or been cancelled since.
	 */
	private static final String DELETE_HELD = """
			DELETE FROM {jobs} WHERE id IN (SELECT value FROM json_each(?)) AND held_run_at IS NOT NULL
			RETURNING type, status
			""";

	private final SqliteJobStore store;

	private final FinishedCounts finishedCounts;

	HeldEnqueue(SqliteJobStore store) {
		this.store = Objects.requireNonNull(store, "'store' must not be null");
		this.finishedCounts = new FinishedCounts(store.tables());
	}

	List<Long> enqueue(String action, List<NewJob> jobs, Instant now, Runnable afterCommit) {
		SqliteDatabase database = this.store.database();
		long[] lastBefore = new long[1];
		List<Long> ids = database.write(action, (connection) -> {
			lastBefore[0] = lastJobId(connection);
			List<Long> inserted = this.store.insertJobs(connection, jobs, now);
			try (PreparedStatement hold = connection.prepareStatement(this.store.tables().expand(HOLD_NEW_JOBS))) {
				hold.setLong(1, NEVER);
				hold.setLong(2, lastBefore[0]);
				hold.executeUpdate();
			}
			return inserted;
		});
		List<Long> held = ids.stream().filter((id) -> id > lastBefore[0]).distinct().toList();
		if (held.isEmpty()) {
			afterCommit.run();
			return ids;
		}
		database.callerTransactions().afterCompletion((outcome) -> {
			if (outcome == CallerTransactions.Outcome.COMMITTED) {
				release(held, afterCommit);
			}
			else if (outcome == CallerTransactions.Outcome.ROLLED_BACK) {
				discard(held);
			}
			else {
				logger.warn("The transaction that enqueued job(s) {} ended in an unknown state; they stay held "
						+ "and do not run. Release them by hand if its work was committed (see the README, "
						+ "\"Transactions\")", held);
			}
		});
		return ids;
	}

	private long lastJobId(Connection connection) throws SQLException {
		try (PreparedStatement select = connection.prepareStatement(this.store.tables().expand(LAST_JOB_ID));
				ResultSet rows = select.executeQuery()) {
			return rows.next() ? rows.getLong(1) : 0;
		}
	}

	private void release(List<Long> held, Runnable afterCommit) {
		try {
			run("make job(s) " + held + " visible after their transaction committed", RELEASE_HELD, held);
			afterCommit.run();
		}
		catch (RuntimeException ex) {
			logger.error(
					"Job(s) {} were enqueued in a transaction that committed, but could not be made visible; "
							+ "they stay held and do not run until released (see the README, \"Transactions\")",
					held, ex);
		}
	}

	private void discard(List<Long> held) {
		try {
			this.store.database().write("delete job(s) " + held + " of a rolled-back transaction", (connection) -> {
				FinishedCounts.Changes changes = new FinishedCounts.Changes();
				try (PreparedStatement delete = connection.prepareStatement(this.store.tables().expand(DELETE_HELD))) {
					delete.setString(1, json(held));
					try (ResultSet rows = delete.executeQuery()) {
						while (rows.next()) {
							changes.unfinished(rows.getString(1), rows.getString(2));
						}
					}
				}
				this.finishedCounts.add(connection, null, changes);
				return null;
			});
		}
		catch (RuntimeException ex) {
			logger.error("Job(s) {} were enqueued in a transaction that rolled back and could not be deleted; they "
					+ "stay held and never run", held, ex);
		}
	}

	private void run(String action, String statement, List<Long> ids) {
		this.store.database().write(action, (connection) -> {
			try (PreparedStatement update = connection.prepareStatement(this.store.tables().expand(statement))) {
				update.setString(1, json(ids));
				return update.executeUpdate();
			}
		});
	}

	private static String json(List<Long> ids) {
		return ids.stream()
			.map(String::valueOf)
			.reduce((a, b) -> a + "," + b)
			.map((list) -> "[" + list + "]")
			.orElse("[]");
	}

}
