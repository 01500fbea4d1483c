package dev.jobqueue.jdbc;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.jobqueue.BulkAction;
import dev.jobqueue.JobFilter;

/**
 * The statements of a bulk action: a job filter and the action's own condition as SQL
 * over {@code {jobs} j}, in the four shapes a bulk action reads and locks with. Each
 * filter field set adds one condition and one parameter (a field added to
 * {@link JobFilter} adds one line to {@link #conditions} and one to {@link #bind}).
 * Statements are built once per action and set of fields.
 */
final class BulkStatements {

	/** The jobs a retry applies to: the single retry's condition. */
	private static final String RETRYABLE = "j.status IN ('failed', 'cancelled')";

	/**
	 * The jobs a cancel applies to: unstarted, or running without a cancel requested yet
	 * (asking twice changes nothing).
	 */
	private static final String CANCELLABLE = "(j.status IN ('waiting', 'pending') OR (j.status = 'running' AND NOT j.cancel_requested))";

	/**
	 * The jobs a delete applies to: retention's rule, so a chain goes whole (by
	 * retention) and no unfinished job loses what it waits for.
	 */
	private static final String DELETABLE = """
			j.status IN ('succeeded', 'failed', 'cancelled') AND j.chain_id IS NULL
			AND NOT EXISTS (SELECT 1 FROM {dependencies} d JOIN {jobs} w ON w.id = d.job_id
			                WHERE d.depends_on = j.id AND w.status IN ('waiting', 'pending', 'running'))""";

	private final Tables tables;

	private final Map<String, Sql> cache = new ConcurrentHashMap<>();

	BulkStatements(Tables tables) {
		this.tables = tables;
	}

	/** How many jobs the action applies to. */
	Sql count(BulkAction action, JobFilter filter) {
		return statement("count", action, filter, "SELECT count(*) FROM {jobs} j WHERE %s");
	}

	/** The next ids after {@code :after} up to {@code :through}, in id order. */
	Sql select(BulkAction action, JobFilter filter) {
		return statement("select", action, filter,
				"SELECT j.id FROM {jobs} j WHERE j.id > :after AND j.id <= :through AND %s ORDER BY j.id LIMIT :limit");
	}

	/**
	 * Those of {@code :ids} that still match, locked until the transaction ends where the
	 * database locks rows, with what the action needs of them: id, status, dedup key,
	 * type.
	 */
	Sql lock(BulkAction action, JobFilter filter) {
		return statement("lock", action, filter,
				"SELECT j.id, j.status, j.dedup_key, j.type FROM {jobs} j WHERE j.id {in_ids :ids} AND %s ORDER BY j.id {for_update}");
	}

	private Sql statement(String shape, BulkAction action, JobFilter filter, String template) {
		List<String> conditions = conditions(action, filter);
		String key = shape + "/" + String.join(" AND ", conditions);
		return this.cache.computeIfAbsent(key,
				(ignored) -> this.tables.sql(template.formatted(String.join(" AND ", conditions))));
	}

	/** The filter's fields set, then the action's condition. */
	static List<String> conditions(BulkAction action, JobFilter filter) {
		List<String> conditions = new ArrayList<>();
		if (filter.type() != null) {
			conditions.add("j.type = :type");
		}
		if (filter.status() != null) {
			conditions.add("j.status = :status");
		}
		if (filter.errorCode() != null) {
			conditions.add("j.error_code = :error_code");
		}
		if (filter.key() != null) {
			conditions.add("j.job_key = :job_key");
		}
		if (filter.enqueuedFrom() != null) {
			conditions.add("j.created_at >= :enqueued_from");
		}
		if (filter.enqueuedTo() != null) {
			conditions.add("j.created_at < :enqueued_to");
		}
		if (filter.finishedFrom() != null) {
			conditions.add("j.finished_at >= :finished_from");
		}
		if (filter.finishedTo() != null) {
			conditions.add("j.finished_at < :finished_to");
		}
		conditions.add(switch (action) {
			case RETRY -> RETRYABLE;
			case CANCEL -> CANCELLABLE;
			case DELETE -> DELETABLE;
		});
		return conditions;
	}

	/** Binds the filter's fields set. */
	static SqlStatement bind(SqlStatement statement, JobFilter filter) throws SQLException {
		if (filter.type() != null) {
			statement.bind("type", filter.type());
		}
		if (filter.status() != null) {
			statement.bind("status", filter.status().dbValue());
		}
		if (filter.errorCode() != null) {
			statement.bind("error_code", filter.errorCode());
		}
		if (filter.key() != null) {
			statement.bind("job_key", filter.key());
		}
		if (filter.enqueuedFrom() != null) {
			statement.bind("enqueued_from", filter.enqueuedFrom());
		}
		if (filter.enqueuedTo() != null) {
			statement.bind("enqueued_to", filter.enqueuedTo());
		}
		if (filter.finishedFrom() != null) {
			statement.bind("finished_from", filter.finishedFrom());
		}
		if (filter.finishedTo() != null) {
			statement.bind("finished_to", filter.finishedTo());
		}
		return statement;
	}

}
