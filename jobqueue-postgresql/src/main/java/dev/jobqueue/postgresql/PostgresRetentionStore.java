package dev.jobqueue.postgresql;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.store.StorageStats;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link RetentionStore} on PostgreSQL.
 *
 * <ul>
 * <li>Each batch is its own short transaction. It finds its rows through
 * {@code jobs_finished_idx (status, type, finished_at)}, one type at a time, so a batch
 * reads only rows it deletes; attempts and events go by {@code ON DELETE CASCADE} through
 * their {@code job_id} indexes.</li>
 * <li>The types of a status are found by a loose index scan (a recursive query: one index
 * seek per type).</li>
 * <li>The lease is a row of {@code job_housekeeping}, taken with
 * {@code INSERT ... ON CONFLICT DO UPDATE ...
 * WHERE} the lease expired or is ours, so exactly one process holds it.</li>
 * <li>Space: autovacuum makes the space of deleted rows reusable; files do not shrink
 * without a {@code VACUUM FULL}, which locks the tables and is the operator's call.
 * {@link #vacuum()} runs a plain {@code VACUUM (ANALYZE)}, which never blocks the queue.
 * There is no write-ahead log of the queue's own: the server checkpoints.</li>
 * </ul>
 */
public final class PostgresRetentionStore implements RetentionStore {

	private static final String ACQUIRE_LEASE = """
			INSERT INTO {housekeeping} AS h (name, owner, lease_until) VALUES (:task, :owner, :until)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
			WHERE h.lease_until <= :now OR h.owner = excluded.owner
			""";

	private static final String RELEASE_LEASE = """
			UPDATE {housekeeping} SET lease_until = 'epoch' WHERE name = :task AND owner = :owner
			""";

	private static final String DELETE_SILENT_WORKERS = """
			DELETE FROM {workers} WHERE heartbeat_at < :heartbeat_before
			""";

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
	 * The ids as an array: {@code id IN (...)} was planned as a hash join over the whole
	 * table.
	 */
	static final String DELETE_FINISHED = """
			DELETE FROM {jobs} WHERE id = ANY(ARRAY(
			    SELECT f.id FROM {jobs} f
			    WHERE f.status = :status AND f.type = :type AND f.finished_at < :finished_before
			      AND f.finished_at IS NOT NULL AND f.chain_id IS NULL
			      AND NOT EXISTS (SELECT 1 FROM {dependencies} d JOIN {jobs} w ON w.id = d.job_id
			                      WHERE d.depends_on = f.id AND w.status IN ('waiting', 'pending', 'running'))
			    LIMIT :limit))
			""";

	/**
	 * Whole chains, oldest first: the chain index is read in chain order and each chain
	 * checked as a group, so the scan stops after {@code :limit} deletable chains. A step
	 * is finished before the cutoff of its status (a status without a cutoff is kept),
	 * and no unfinished job outside the chain waits for one of its steps. The delete
	 * takes only finished steps, so a step retried meanwhile stays.
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
			    RETURNING 1
			)
			SELECT count(*) FROM deleted
			""";

	/** Tables and indexes of the queue (heap, TOAST and indexes of each table). */
	private static final String SIZES = """
			SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = :schema AND c.relkind = 'r' AND c.relname = ANY(:tables::text[])
			""";

	static final List<String> TABLES = List.of("jobs", "job_attempts", "job_events", "job_dependencies", "job_workers",
			"job_housekeeping", "job_schedules", "job_paused_types");

	private final PostgresDatabase database;

	private final Tables tables;

	public PostgresRetentionStore(PostgresDatabase database, Tables tables) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
	}

	@Override
	public boolean acquireLease(String task, String owner, Instant now, Instant until) {
		return this.database.write("take the " + task + " lease", (connection) -> {
			try (SqlStatement acquire = sql(ACQUIRE_LEASE).prepare(connection)) {
				return acquire.bind("task", task)
					.bind("owner", owner)
					.bind("until", until)
					.bind("now", now)
					.executeUpdate() == 1;
			}
		});
	}

	@Override
	public void releaseLease(String task, String owner) {
		this.database.write("release the " + task + " lease", (connection) -> {
			try (SqlStatement release = sql(RELEASE_LEASE).prepare(connection)) {
				return release.bind("task", task).bind("owner", owner).executeUpdate();
			}
		});
	}

	@Override
	public int deleteSilentWorkers(Instant heartbeatBefore) {
		return this.database.write("delete the rows of silent workers", (connection) -> {
			try (SqlStatement delete = sql(DELETE_SILENT_WORKERS).prepare(connection)) {
				return delete.bind("heartbeat_before", heartbeatBefore).executeUpdate();
			}
		});
	}

	@Override
	public List<String> finishedTypes(JobStatus status) {
		requireFinal(status);
		return this.database.read("list the types of " + status.dbValue() + " jobs", (connection) -> {
			List<String> types = new ArrayList<>();
			try (SqlStatement select = sql(FINISHED_TYPES).prepare(connection)) {
				select.bind("status", status.dbValue());
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						types.add(rows.getString(1));
					}
				}
			}
			return types;
		});
	}

	@Override
	public int deleteFinished(JobStatus status, String type, Instant finishedBefore, int limit) {
		requireFinal(status);
		Objects.requireNonNull(type, "'type' must not be null");
		return this.database.write("delete expired " + status.dbValue() + " jobs", (connection) -> {
			try (SqlStatement delete = sql(DELETE_FINISHED).prepare(connection)) {
				return delete.bind("status", status.dbValue())
					.bind("type", type)
					.bind("finished_before", finishedBefore)
					.bind("limit", limit)
					.executeUpdate();
			}
		});
	}

	@Override
	public int deleteFinishedChains(Map<JobStatus, Instant> finishedBefore, int limit) {
		Objects.requireNonNull(finishedBefore, "'finishedBefore' must not be null");
		if (limit <= 0 || finishedBefore.isEmpty()) {
			return 0;
		}
		return this.database.write("delete expired chains", (connection) -> {
			try (SqlStatement delete = sql(DELETE_FINISHED_CHAINS).prepare(connection)) {
				delete.bind("succeeded_before", finishedBefore.get(JobStatus.SUCCEEDED))
					.bind("failed_before", finishedBefore.get(JobStatus.FAILED))
					.bind("cancelled_before", finishedBefore.get(JobStatus.CANCELLED))
					.bind("limit", limit);
				try (ResultSet rows = delete.executeQuery()) {
					return rows.next() ? rows.getInt(1) : 0;
				}
			}
		});
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
		return this.database.read("read the size of the queue's tables", (connection) -> {
			try (SqlStatement select = sql(SIZES).prepare(connection)) {
				select.bind("schema", this.tables.schema())
					.bindTexts("tables", TABLES.stream().map((table) -> this.tables.prefix() + table).toList());
				try (ResultSet rows = select.executeQuery()) {
					return rows.next() ? rows.getLong(1) : 0L;
				}
			}
		});
	}

	/**
	 * Nothing to do: PostgreSQL reuses the space of deleted rows once autovacuum has seen
	 * them.
	 */
	@Override
	public long reclaimFreeSpace(int maxPages) {
		if (maxPages <= 0) {
			throw new IllegalArgumentException("'maxPages' must be positive");
		}
		return 0;
	}

	/** Nothing to do: the server checkpoints its write-ahead log itself. */
	@Override
	public StorageStats checkpoint(boolean truncate) {
		return storage();
	}

	/**
	 * {@code VACUUM (ANALYZE)} of the queue's tables: marks the space of deleted rows
	 * reusable and refreshes the planner's statistics, without locking out the queue.
	 * Files shrink only with {@code VACUUM FULL}, which locks the tables: run that
	 * yourself, off-peak, if you need the disk back.
	 */
	@Override
	public StorageStats vacuum() {
		this.database.read("vacuum the queue's tables", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				for (String table : TABLES) {
					statement.execute("VACUUM (ANALYZE) " + this.tables.qualified(table));
				}
			}
			return null;
		});
		return storage();
	}

	/** Nothing to switch on: PostgreSQL has no such mode. */
	@Override
	public StorageStats enableIncrementalVacuum() {
		return storage();
	}

	private static void requireFinal(JobStatus status) {
		if (!Objects.requireNonNull(status, "'status' must not be null").isFinal()) {
			throw new IllegalArgumentException("Only finished jobs are deleted, not " + status);
		}
	}

	private Sql sql(String template) {
		return this.tables.sql(template);
	}

}
