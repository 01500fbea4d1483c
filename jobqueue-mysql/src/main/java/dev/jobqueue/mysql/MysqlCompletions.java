package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.jobqueue.core.store.Completion;
import dev.jobqueue.jdbc.JdbcCompletions;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.JsonArrays;
import dev.jobqueue.jdbc.Links;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * MySQL's outcome statements for {@link JdbcCompletions}: each is an UPDATE fenced on the
 * run, then (it applied, so the transaction holds the row) a read of the new status and
 * whether jobs wait for the job. A round's successes are locked, updated and checked for
 * dependents in three statements whatever their number; their attempt ends and events go
 * with the other outcomes'.
 */
final class MysqlCompletions implements JdbcCompletions.Successes {

	/** Whether jobs wait for job {@code j}. */
	static final String HAS_DEPENDENTS = "EXISTS (SELECT 1 FROM {dependencies} d WHERE d.depends_on = j.id AND NOT d.settled)";

	/**
	 * The runs of a round's successes as a table: id, run, result (JSON text as a JSON
	 * string, or null).
	 */
	private static final String SUCCESSES = """
			JSON_TABLE(:successes, '$[*]' COLUMNS (id BIGINT PATH '$[0]', run INT PATH '$[1]',
			    result LONGTEXT PATH '$[2]')) s
			""".strip();

	/** The successes whose run still holds its job, locked. */
	static final String LOCK_RUNNING = """
			SELECT j.id FROM {jobs} j JOIN %s ON j.id = s.id AND j.runs = s.run
			WHERE j.status = 'running'
			ORDER BY j.id
			FOR UPDATE
			""".formatted(SUCCESSES);

	/**
	 * All successes of a round in one statement; none of its assignments reads a column
	 * another sets, so their order (which MySQL leaves open in a join) does not matter.
	 */
	static final String MARK_SUCCEEDED = """
			UPDATE {jobs} j JOIN %s ON j.id = s.id AND j.runs = s.run
			SET j.status = 'succeeded', j.result = s.result, j.finished_at = :now, j.lease_until = NULL,
			    j.error_code = NULL, j.error_detail = NULL
			WHERE j.status = 'running'
			""".formatted(SUCCESSES);

	static final String WITH_DEPENDENTS = """
			SELECT DISTINCT depends_on FROM {dependencies} WHERE depends_on {in_ids :ids} AND NOT settled
			""";

	private static final String MARK_FAILED = """
			UPDATE {jobs}
			SET status = 'failed', finished_at = :now, lease_until = NULL, error_code = :error_code,
			    error_detail = :error_detail
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

	private static final String MARK_CANCELLED = """
			UPDATE {jobs}
			SET status = 'cancelled', finished_at = :now, lease_until = NULL
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

	/**
	 * Back to pending: a retry after its backoff, or (giving the attempt back) a snooze
	 * or hand-back. MySQL assigns left to right, each expression seeing the columns set
	 * before it: {@code status} and {@code finished_at} read only
	 * {@code cancel_requested}, which no assignment changes.
	 */
	private static final String MARK_PENDING_AGAIN = """
			UPDATE {jobs}
			SET status = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'pending' END,
			    finished_at = CASE WHEN cancel_requested THEN :now END,
			    run_at = :next_run_at, lease_until = NULL, error_code = coalesce(:error_code, error_code),
			    error_detail = coalesce(:error_detail, error_detail), attempts = attempts - :gives_back,
			    snoozes = snoozes + :snoozed
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

	private static final String READ_OUTCOME = """
			SELECT j.status, %s FROM {jobs} j WHERE j.id = :job_id
			""".formatted(HAS_DEPENDENTS);

	private final Sql lockRunning;

	private final Sql markSucceeded;

	private final Sql withDependents;

	private MysqlCompletions(Tables tables) {
		this.lockRunning = tables.sql(LOCK_RUNNING);
		this.markSucceeded = tables.sql(MARK_SUCCEEDED);
		this.withDependents = tables.sql(WITH_DEPENDENTS);
	}

	static JdbcCompletions create(Tables tables, JobEvents events, Links links) {
		return new JdbcCompletions(tables, events, links, new MysqlCompletions(tables), MARK_FAILED, MARK_CANCELLED,
				MARK_PENDING_AGAIN, READ_OUTCOME);
	}

	/**
	 * Locks the successes whose run still holds the job, then marks them succeeded in one
	 * statement: what the lock found is what the update changes.
	 */
	@Override
	public boolean[] mark(Connection connection, List<Completion> successes, String workerId, Instant now,
			Map<Long, String> finished) throws SQLException {
		StringBuilder json = new StringBuilder(successes.size() * 32).append('[');
		for (Completion success : successes) {
			json.append((json.length() > 1) ? "," : "")
				.append('[')
				.append(success.jobId())
				.append(',')
				.append(success.run())
				.append(',')
				.append(JsonArrays.string(success.result()))
				.append(']');
		}
		String runs = json.append(']').toString();
		Set<Long> running = new HashSet<>();
		try (SqlStatement lock = this.lockRunning.prepare(connection);
				ResultSet rows = lock.bind("successes", runs).executeQuery()) {
			while (rows.next()) {
				running.add(rows.getLong(1));
			}
		}
		boolean[] applied = new boolean[successes.size()];
		if (running.isEmpty()) {
			return applied;
		}
		try (SqlStatement succeed = this.markSucceeded.prepare(connection)) {
			succeed.bind("successes", runs).bind("now", now).executeUpdate();
		}
		for (int k = 0; k < successes.size(); k++) {
			applied[k] = running.contains(successes.get(k).jobId());
		}
		try (SqlStatement select = this.withDependents.prepare(connection);
				ResultSet rows = select.bindIds("ids", running).executeQuery()) {
			while (rows.next()) {
				finished.put(rows.getLong(1), "succeeded");
			}
		}
		return applied;
	}

	@Override
	public boolean recordsOutcome() {
		return false;
	}

}
