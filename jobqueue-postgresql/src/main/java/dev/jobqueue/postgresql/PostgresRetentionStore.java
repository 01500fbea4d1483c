package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.StorageStats;
import dev.jobqueue.jdbc.FinishedCounts;
import dev.jobqueue.jdbc.JdbcRetentionStore;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JdbcRetentionStore} on PostgreSQL.
 *
 * <ul>
 * <li>A batch takes its ids as an array; the jobs' attempts and events go in the same
 * statement, through the primary keys that start with {@code job_id} (they have no
 * foreign key to cascade: see V8).</li>
 * <li>The types of a status are found by a loose index scan (a recursive query: one index
 * seek per type).</li>
 * <li>Whole chains go in one statement that reads the chain index in order.</li>
 * <li>Space: autovacuum makes the space of deleted rows reusable; files do not shrink
 * without a {@code VACUUM FULL}, which locks the tables and is the operator's call.
 * {@link #vacuum()} runs a plain {@code VACUUM (ANALYZE)}, which never blocks the queue.
 * There is no write-ahead log of the queue's own: the server checkpoints, so this store
 * offers no {@link dev.jobqueue.core.store.FileMaintenance}.</li>
 * </ul>
 */
public final class PostgresRetentionStore extends JdbcRetentionStore {

	/**
	 * One index seek per type: the next type after the previous one, until there is none.
	 */
	static final String FINISHED_TYPES = """
			WITH RECURSIVE types AS (
			    (SELECT type FROM {jobs} WHERE status = :status AND finished_at IS NOT NULL ORDER BY type LIMIT 1)
			    UNION ALL
			    SELECT (SELECT j.type FROM {jobs} j
			            WHERE j.status = :status AND j.finished_at IS NOT NULL AND j.type > types.type
			            ORDER BY j.type LIMIT 1)
			    FROM types WHERE types.type IS NOT NULL
			)
			SELECT type FROM types WHERE type IS NOT NULL
			""";

	/**
	 * The attempts and events of the jobs a statement's {@code deleted} step removed,
	 * which have no foreign key to go with them.
	 */
	static final String HISTORY_OF_DELETED = """
			, deleted_attempts AS (
			    DELETE FROM {attempts} WHERE job_id = ANY(ARRAY(SELECT id FROM deleted))
			), deleted_events AS (
			    DELETE FROM {events} WHERE job_id = ANY(ARRAY(SELECT id FROM deleted))
			)""";

	/**
	 * The ids as an array: {@code id IN (...)} was planned as a hash join over the whole
	 * table. The status is asked again of the row deleted: a job retried while the
	 * statement waited for its lock is pending again and stays.
	 */
	static final String DELETE_FINISHED = """
			WITH deleted AS (
			    DELETE FROM {jobs} WHERE id = ANY(ARRAY(
			        SELECT f.id FROM {jobs} f
			        WHERE f.status = :status AND f.type = :type AND f.finished_at < :finished_before
			          AND f.finished_at IS NOT NULL AND f.chain_id IS NULL
			          AND NOT EXISTS (SELECT 1 FROM {dependencies} d JOIN {jobs} w ON w.id = d.job_id
			                          WHERE d.depends_on = f.id AND w.status IN ('waiting', 'pending', 'running'))
			        LIMIT :limit))
			      AND status = :status
			    RETURNING id
			)%s
			SELECT count(*) FROM deleted
			""".formatted(HISTORY_OF_DELETED);

	/**
	 * Whole chains, oldest first: the chain index is read in chain order and each chain
	 * checked as a group, so the scan stops after {@code :limit} deletable chains. A step
	 * is finished before the cutoff of its status (a status without a cutoff is kept),
	 * and no unfinished job outside the chain waits for one of its steps. The delete
	 * takes only finished steps, so a step retried meanwhile stays; it counts the steps
	 * it deleted per type and status.
	 */
	static final String DELETE_FINISHED_CHAINS = """
			WITH chains AS (
			    SELECT s.chain_id FROM {jobs} s
			    WHERE s.chain_id IS NOT NULL
			    GROUP BY s.chain_id
			    HAVING bool_and(coalesce(
			               (s.status = 'succeeded' AND s.finished_at < :succeeded_before)
			               OR (s.status = 'failed' AND s.finished_at < :failed_before)
			               OR (s.status = 'cancelled' AND s.finished_at < :cancelled_before), false))
			       AND NOT EXISTS (SELECT 1 FROM {jobs} c JOIN {dependencies} d ON d.depends_on = c.id
			                       JOIN {jobs} w ON w.id = d.job_id
			                       WHERE c.chain_id = s.chain_id AND w.status IN ('waiting', 'pending', 'running')
			                         AND w.chain_id IS DISTINCT FROM s.chain_id)
			    ORDER BY s.chain_id
			    LIMIT :limit
			), deleted AS (
			    DELETE FROM {jobs} WHERE chain_id = ANY(ARRAY(SELECT chain_id FROM chains))
			        AND status IN ('succeeded', 'failed', 'cancelled')
			    RETURNING id, type, status
			)%s
			SELECT type, status, count(*) FROM deleted GROUP BY type, status
			""".formatted(HISTORY_OF_DELETED);

	/** Tables and indexes of the queue (heap, TOAST and indexes of each table). */
	private static final String SIZES = """
			SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = :schema AND c.relkind = 'r' AND c.relname = ANY(:tables::text[])
			""";

	public PostgresRetentionStore(PostgresDatabase database, Tables tables) {
		super(database, tables, DELETE_FINISHED);
	}

	@Override
	protected List<String> finishedTypes(Connection connection, String status) throws SQLException {
		try (SqlStatement select = sql(FINISHED_TYPES).prepare(connection)) {
			return select.bind("status", status).queryStrings();
		}
	}

	/** The count the statement returns: it deletes the jobs' attempts and events too. */
	@Override
	protected int deleted(SqlStatement delete) throws SQLException {
		return (int) delete.queryLong();
	}

	@Override
	protected int deleteFinishedChains(Connection connection, Map<JobStatus, Instant> finishedBefore, int limit,
			FinishedCounts.Changes changes) throws SQLException {
		try (SqlStatement delete = sql(DELETE_FINISHED_CHAINS).prepare(connection)) {
			delete.bind("succeeded_before", finishedBefore.get(JobStatus.SUCCEEDED))
				.bind("failed_before", finishedBefore.get(JobStatus.FAILED))
				.bind("cancelled_before", finishedBefore.get(JobStatus.CANCELLED))
				.bind("limit", limit);
			int deleted = 0;
			try (ResultSet rows = delete.executeQuery()) {
				while (rows.next()) {
					changes.add(rows.getString(1), rows.getString(2), -rows.getLong(3));
					deleted += rows.getInt(3);
				}
			}
			return deleted;
		}
	}

	/**
	 * The queue's tables with their indexes as {@code fileBytes}; nothing is free for a
	 * store to hand back.
	 */
	@Override
	public StorageStats storage() {
		return new StorageStats(tableBytes(), 0, 0, false);
	}

	long tableBytes() {
		return database().read("read the size of the queue's tables", (connection) -> {
			try (SqlStatement select = sql(SIZES).prepare(connection)) {
				select.bind("schema", tables().schema()).bindTexts("tables", tables().names());
				try (ResultSet rows = select.executeQuery()) {
					return rows.next() ? rows.getLong(1) : 0L;
				}
			}
		});
	}

	/**
	 * {@code VACUUM (ANALYZE)} of the queue's tables: marks the space of deleted rows
	 * reusable and refreshes the planner's statistics, without locking out the queue.
	 * Files shrink only with {@code VACUUM FULL}, which locks the tables: run that
	 * yourself, off-peak, if you need the disk back.
	 */
	@Override
	public StorageStats vacuum() {
		eachTable("vacuum the queue's tables", "VACUUM (ANALYZE) ");
		return storage();
	}

	private Sql sql(String template) {
		return tables().sql(template);
	}

}
