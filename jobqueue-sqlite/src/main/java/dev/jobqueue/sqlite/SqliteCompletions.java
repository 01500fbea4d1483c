package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashSet;
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
 * SQLite's outcome statements for {@link JdbcCompletions}: successes go as one JDBC batch
 * of updates, then one read of the types of those that applied (their attempts and events
 * are written with the other outcomes'): two calls whatever the number of successes.
 * Flags are integers; every finished job is offered to the settle, which looks for
 * dependents once for the whole round.
 */
final class SqliteCompletions implements JdbcCompletions.Successes {

	private static final String MARK_SUCCEEDED = """
			UPDATE {jobs}
			SET status = 'succeeded', result = :result, finished_at = :now, lease_until = NULL, error_code = NULL,
			    error_detail = NULL
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

	/** The types of the successes that applied, by primary key. */
	private static final String TYPES = """
			SELECT id, type FROM {jobs} WHERE id IN (SELECT value FROM json_each(:ids))
			""";

	private static final String MARK_FAILED = """
			UPDATE {jobs}
			SET status = 'failed', finished_at = :now, lease_until = NULL, error_code = :error_code,
			    error_detail = :error_detail
			WHERE id = :job_id AND runs = :run AND status = 'running'
			RETURNING status, 1, type
			""";

	private static final String MARK_CANCELLED = """
			UPDATE {jobs}
			SET status = 'cancelled', finished_at = :now, lease_until = NULL
			WHERE id = :job_id AND runs = :run AND status = 'running'
			RETURNING status, 1, type
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
			RETURNING status, 1, type
			""";

	private final Sql markSucceeded;

	private final Sql types;

	private SqliteCompletions(Tables tables) {
		this.markSucceeded = tables.sql(MARK_SUCCEEDED);
		this.types = tables.sql(TYPES);
	}

	static JdbcCompletions create(Tables tables, JobEvents events, Links links) {
		return new JdbcCompletions(tables, events, links, new SqliteCompletions(tables), MARK_FAILED, MARK_CANCELLED,
				MARK_PENDING_AGAIN);
	}

	@Override
	public String[] mark(Connection connection, List<Completion> successes, String workerId, Instant now,
			Map<Long, String> finished) throws SQLException {
		boolean[] applied = new boolean[successes.size()];
		Set<Long> appliedIds = new LinkedHashSet<>();
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
					appliedIds.add(successes.get(k).jobId());
					finished.put(successes.get(k).jobId(), "succeeded");
				}
			}
		}
		String[] types = new String[successes.size()];
		if (appliedIds.isEmpty()) {
			return types;
		}
		Map<Long, String> typeById = new HashMap<>();
		try (SqlStatement select = this.types.prepare(connection);
				ResultSet rows = select.bind("ids", JsonArrays.of(appliedIds)).executeQuery()) {
			while (rows.next()) {
				typeById.put(rows.getLong(1), rows.getString(2));
			}
		}
		for (int k = 0; k < successes.size(); k++) {
			types[k] = applied[k] ? typeById.get(successes.get(k).jobId()) : null;
		}
		return types;
	}

	@Override
	public boolean recordsOutcome() {
		return false;
	}

}
