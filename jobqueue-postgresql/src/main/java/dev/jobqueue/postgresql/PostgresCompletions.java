package dev.jobqueue.postgresql;

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
import dev.jobqueue.jdbc.Links;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * PostgreSQL's outcome statements for {@link JdbcCompletions}: all successes of a round
 * in one statement with their attempt rows and events; each statement says whether jobs
 * wait for the job (one probe of the dependency table's primary key), so only a job with
 * dependents costs a settle statement.
 */
final class PostgresCompletions implements JdbcCompletions.Successes {

	/** Whether jobs wait for the updated job {@code j}. */
	static final String HAS_DEPENDENTS = "EXISTS (SELECT 1 FROM {dependencies} d WHERE d.depends_on = j.id AND NOT d.settled)";

	/** All successes of a round in one statement, with their attempt rows and events. */
	static final String MARK_SUCCEEDED = """
			WITH done AS (
			    UPDATE {jobs} j
			    SET status = 'succeeded', result = s.result, finished_at = :now, lease_until = NULL, error_code = NULL,
			        error_detail = NULL
			    FROM unnest(:ids::bigint[], :runs::int[], :results::text[]) AS s(id, run, result)
			    WHERE j.id = s.id AND j.runs = s.run AND j.status = 'running'
			    RETURNING j.id, j.runs
			), attempt_rows AS (
			    UPDATE {attempts} a SET finished_at = :now, outcome = 'SUCCEEDED'
			    FROM done WHERE a.job_id = done.id AND a.run = done.runs
			), event_rows AS (
			    INSERT INTO {events} (job_id, at, event, actor) SELECT id, :now, 'SUCCEEDED', :worker_id FROM done
			)
			SELECT id, EXISTS (SELECT 1 FROM {dependencies} d WHERE d.depends_on = done.id AND NOT d.settled)
			FROM done
			""";

	private static final String MARK_FAILED = """
			UPDATE {jobs} j
			SET status = 'failed', finished_at = :now, lease_until = NULL, error_code = :error_code,
			    error_detail = :error_detail
			WHERE j.id = :job_id AND j.runs = :run AND j.status = 'running'
			RETURNING j.status, %s
			""".formatted(HAS_DEPENDENTS);

	private static final String MARK_CANCELLED = """
			UPDATE {jobs} j
			SET status = 'cancelled', finished_at = :now, lease_until = NULL
			WHERE j.id = :job_id AND j.runs = :run AND j.status = 'running'
			RETURNING j.status, %s
			""".formatted(HAS_DEPENDENTS);

	/**
	 * Back to pending: a retry after its backoff, or (giving the attempt back) a snooze
	 * or hand-back.
	 */
	private static final String MARK_PENDING_AGAIN = """
			UPDATE {jobs} j
			SET status = CASE WHEN j.cancel_requested THEN 'cancelled' ELSE 'pending' END,
			    finished_at = CASE WHEN j.cancel_requested THEN :now::timestamptz END,
			    run_at = :next_run_at, lease_until = NULL, error_code = coalesce(:error_code::text, j.error_code),
			    error_detail = coalesce(:error_detail::text, j.error_detail), attempts = j.attempts - :gives_back,
			    snoozes = j.snoozes + :snoozed
			WHERE j.id = :job_id AND j.runs = :run AND j.status = 'running'
			RETURNING j.status, %s
			""".formatted(HAS_DEPENDENTS);

	private final Sql markSucceeded;

	private PostgresCompletions(Tables tables) {
		this.markSucceeded = tables.sql(MARK_SUCCEEDED);
	}

	static JdbcCompletions create(Tables tables, JobEvents events, Links links) {
		return new JdbcCompletions(tables, events, links, new PostgresCompletions(tables), MARK_FAILED, MARK_CANCELLED,
				MARK_PENDING_AGAIN);
	}

	@Override
	public boolean[] mark(Connection connection, List<Completion> successes, String workerId, Instant now,
			Map<Long, String> finished) throws SQLException {
		Long[] ids = new Long[successes.size()];
		Integer[] runs = new Integer[successes.size()];
		String[] results = new String[successes.size()];
		for (int k = 0; k < successes.size(); k++) {
			ids[k] = successes.get(k).jobId();
			runs[k] = successes.get(k).run();
			results[k] = successes.get(k).result();
		}
		Set<Long> done = new HashSet<>();
		try (SqlStatement succeed = this.markSucceeded.prepare(connection)) {
			succeed.bindArray("ids", "int8", ids)
				.bindArray("runs", "int4", runs)
				.bindArray("results", "text", results)
				.bind("now", now)
				.bind("worker_id", workerId);
			try (ResultSet rows = succeed.executeQuery()) {
				while (rows.next()) {
					done.add(rows.getLong(1));
					if (rows.getBoolean(2)) {
						finished.put(rows.getLong(1), "succeeded");
					}
				}
			}
		}
		boolean[] applied = new boolean[successes.size()];
		for (int k = 0; k < successes.size(); k++) {
			applied[k] = done.contains(successes.get(k).jobId());
		}
		return applied;
	}

	@Override
	public boolean recordsOutcome() {
		return true;
	}

}
