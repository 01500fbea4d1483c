package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
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
 * SQLite's outcome statements for {@link JdbcCompletions}: successes go as one JDBC batch
 * of updates (their attempts and events are written with the other outcomes'): one call
 * whatever the number of successes. Flags are integers; every finished job is offered to
 * the settle, which looks for dependents once for the whole round.
 */
final class SqliteCompletions implements JdbcCompletions.Successes {

	private static final String MARK_SUCCEEDED = """
			UPDATE {jobs}
			SET status = 'succeeded', result = :result, finished_at = :now, lease_until = NULL, error_code = NULL,
			    error_detail = NULL
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

	private static final String MARK_FAILED = """
			UPDATE {jobs}
			SET status = 'failed', finished_at = :now, lease_until = NULL, error_code = :error_code,
			    error_detail = :error_detail
			WHERE id = :job_id AND runs = :run AND status = 'running'
			RETURNING status, 1
			""";

	private static final String MARK_CANCELLED = """
			UPDATE {jobs}
			SET status = 'cancelled', finished_at = :now, lease_until = NULL
			WHERE id = :job_id AND runs = :run AND status = 'running'
			RETURNING status, 1
			""";

	/**
	 * Back to pending: a retry after its backoff, or (giving the attempt back) a snooze
	 * or hand-back.
	 */
	private static final String MARK_PENDING_AGAIN = """
			UPDATE {jobs}
			SET status = CASE WHEN cancel_requested = 1 THEN 'cancelled' ELSE 'pending' END,
			    finished_at = CASE WHEN cancel_requested = 1 THEN :now END,
			    run_at = :next_run_at, lease_until = NULL, error_code = coalesce(:error_code, error_code),
			    error_detail = coalesce(:error_detail, error_detail),
			    attempts = attempts - :gives_back, snoozes = snoozes + :snoozed
			WHERE id = :job_id AND runs = :run AND status = 'running'
			RETURNING status, 1
			""";

	private final Sql markSucceeded;

	private SqliteCompletions(Tables tables) {
		this.markSucceeded = tables.sql(MARK_SUCCEEDED);
	}

	static JdbcCompletions create(Tables tables, JobEvents events, Links links) {
		return new JdbcCompletions(tables, events, links, new SqliteCompletions(tables), MARK_FAILED, MARK_CANCELLED,
				MARK_PENDING_AGAIN);
	}

	@Override
	public boolean[] mark(Connection connection, List<Completion> successes, String workerId, Instant now,
			Map<Long, String> finished) throws SQLException {
		boolean[] applied = new boolean[successes.size()];
		try (SqlStatement succeed = this.markSucceeded.prepare(connection)) {
			for (Completion completion : successes) {
				succeed.bind("result", completion.result())
					.bind("now", now)
					.bind("job_id", completion.jobId())
					.bind("run", completion.run())
					.addBatch();
			}
			int[] counts = succeed.executeBatch();
			for (int k = 0; k < successes.size(); k++) {
				applied[k] = counts[k] > 0;
				if (applied[k]) {
					finished.put(successes.get(k).jobId(), "succeeded");
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
