package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.jobqueue.core.store.Completion;
import dev.jobqueue.jdbc.JdbcCompletions;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Links;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * MySQL's outcome statements for {@link JdbcCompletions}: each is an UPDATE fenced on the
 * run, then (it applied, so the transaction holds the row) a read of the new status and
 * whether jobs wait for the job. Successes are one UPDATE each, then one read of which of
 * them jobs wait for; their attempt ends and events go with the other outcomes'.
 */
final class MysqlCompletions implements JdbcCompletions.Successes {

	/** Whether jobs wait for job {@code j}. */
	static final String HAS_DEPENDENTS = "EXISTS (SELECT 1 FROM {dependencies} d WHERE d.depends_on = j.id AND NOT d.settled)";

	static final String MARK_SUCCEEDED = """
			UPDATE {jobs} SET status = 'succeeded', result = :result, finished_at = :now, lease_until = NULL,
			    error_code = NULL, error_detail = NULL
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

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

	private final Sql markSucceeded;

	private final Sql withDependents;

	private MysqlCompletions(Tables tables) {
		this.markSucceeded = tables.sql(MARK_SUCCEEDED);
		this.withDependents = tables.sql(WITH_DEPENDENTS);
	}

	static JdbcCompletions create(Tables tables, JobEvents events, Links links) {
		return new JdbcCompletions(tables, events, links, new MysqlCompletions(tables), MARK_FAILED, MARK_CANCELLED,
				MARK_PENDING_AGAIN, READ_OUTCOME);
	}

	@Override
	public boolean[] mark(Connection connection, List<Completion> successes, String workerId, Instant now,
			Map<Long, String> finished) throws SQLException {
		boolean[] applied = new boolean[successes.size()];
		List<Long> done = new ArrayList<>(successes.size());
		try (SqlStatement succeed = this.markSucceeded.prepare(connection)) {
			for (int k = 0; k < successes.size(); k++) {
				Completion success = successes.get(k);
				applied[k] = succeed.bind("result", success.result())
					.bind("now", now)
					.bind("job_id", success.jobId())
					.bind("run", success.run())
					.executeUpdate() == 1;
				if (applied[k]) {
					done.add(success.jobId());
				}
			}
		}
		if (!done.isEmpty()) {
			try (SqlStatement select = this.withDependents.prepare(connection);
					ResultSet rows = select.bindIds("ids", done).executeQuery()) {
				while (rows.next()) {
					finished.put(rows.getLong(1), "succeeded");
				}
			}
		}
		return applied;
	}

	@Override
	public boolean recordsOutcome() {
		return false;
	}

}
