package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.StorageStats;
import dev.jobqueue.jdbc.FinishedCounts;
import dev.jobqueue.jdbc.JdbcRetentionStore;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JdbcRetentionStore} on MySQL.
 *
 * <ul>
 * <li>A batch deletes through a join with the ids it chose (MySQL refuses a subquery of
 * the table a DELETE deletes from, but not a derived table, which it materialises);
 * attempts, events and dependency rows go by {@code ON DELETE CASCADE}.</li>
 * <li>The types of a status are a {@code DISTINCT} on a prefix of
 * {@code jobs_finished_idx}, which MySQL reads as a loose index scan (one seek per
 * type).</li>
 * <li>The cleanup lease is an {@code ON DUPLICATE KEY UPDATE} whose assignments keep the
 * row when the lease is another's and unexpired ({@code owner} is set first, so the
 * second assignment sees whether the first took it).</li>
 * <li>Space: InnoDB reuses the pages of deleted rows; files shrink only with
 * {@code OPTIMIZE TABLE}, which rebuilds the table and is the operator's call.
 * {@link #vacuum()} runs {@code ANALYZE TABLE}, refreshing the optimizer's
 * statistics.</li>
 * </ul>
 */
public final class MysqlRetentionStore extends JdbcRetentionStore {

	static final String ACQUIRE_LEASE = """
			INSERT INTO {housekeeping} (name, owner, lease_until) VALUES (:task, :owner, :until)
			ON DUPLICATE KEY UPDATE
			    owner = IF(lease_until <= :now OR owner = VALUES(owner), VALUES(owner), owner),
			    lease_until = IF(owner = VALUES(owner), VALUES(lease_until), lease_until)
			""";

	static final String FINISHED_TYPES = """
			SELECT DISTINCT type FROM {jobs} WHERE status = :status AND finished_at IS NOT NULL ORDER BY type
			""";

	/**
	 * The status is asked again of the row deleted: the ids were chosen by a read that
	 * takes no lock, and a job retried meanwhile is pending again and stays.
	 */
	static final String DELETE_FINISHED = """
			DELETE j FROM {jobs} j
			JOIN (SELECT f.id FROM {jobs} f
			      WHERE f.status = :status AND f.type = :type AND f.finished_at < :finished_before
			        AND f.chain_id IS NULL
			        AND NOT EXISTS (SELECT 1 FROM {dependencies} d JOIN {jobs} w ON w.id = d.job_id
			                        WHERE d.depends_on = f.id AND w.status IN ('waiting', 'pending', 'running'))
			      ORDER BY f.finished_at
			      LIMIT :limit) chosen ON chosen.id = j.id
			WHERE j.status = :status
			""";

	/**
	 * Whole chains, oldest first: every step finished before the cutoff of its status (a
	 * status without a cutoff is kept), and no unfinished job outside the chain waits for
	 * one of its steps.
	 */
	static final String FINISHED_CHAINS = """
			SELECT s.chain_id FROM {jobs} s
			WHERE s.chain_id IS NOT NULL
			GROUP BY s.chain_id
			HAVING MIN(coalesce((s.status = 'succeeded' AND s.finished_at < :succeeded_before)
			                    OR (s.status = 'failed' AND s.finished_at < :failed_before)
			                    OR (s.status = 'cancelled' AND s.finished_at < :cancelled_before), FALSE)) = 1
			   AND NOT EXISTS (SELECT 1 FROM {jobs} c JOIN {dependencies} d ON d.depends_on = c.id
			                   JOIN {jobs} w ON w.id = d.job_id
			                   WHERE c.chain_id = s.chain_id AND w.status IN ('waiting', 'pending', 'running')
			                     AND NOT (w.chain_id <=> s.chain_id))
			ORDER BY s.chain_id
			LIMIT :limit
			""";

	/**
	 * The finished steps of the chains, locked, to be counted off as they are deleted: a
	 * step retried meanwhile stays.
	 */
	static final String LOCK_CHAIN_STEPS = """
			SELECT j.id, j.type, j.status FROM {jobs} j JOIN {id_table :chains} c ON j.chain_id = c.id
			WHERE j.status IN ('succeeded', 'failed', 'cancelled')
			ORDER BY j.id
			FOR UPDATE
			""";

	/** The steps {@link #LOCK_CHAIN_STEPS} locked. */
	static final String DELETE_STEPS = """
			DELETE j FROM {jobs} j JOIN {id_table :ids} s ON j.id = s.id
			""";

	/** Data and indexes of the queue's tables, as InnoDB last counted them. */
	static final String SIZES = """
			SELECT table_name, coalesce(data_length, 0), coalesce(index_length, 0), coalesce(table_rows, 0),
			    coalesce(data_free, 0)
			FROM information_schema.tables
			WHERE table_schema = DATABASE() AND table_name {in_texts :tables}
			ORDER BY table_name
			""";

	public MysqlRetentionStore(MysqlDatabase database, Tables tables) {
		super(database, tables, DELETE_FINISHED, ACQUIRE_LEASE);
	}

	@Override
	protected List<String> finishedTypes(Connection connection, String status) throws SQLException {
		try (SqlStatement select = tables().sql(FINISHED_TYPES).prepare(connection)) {
			return select.bind("status", status).queryStrings();
		}
	}

	@Override
	protected int deleteFinishedChains(Connection connection, Map<JobStatus, Instant> finishedBefore, int limit,
			FinishedCounts.Changes changes) throws SQLException {
		List<Long> chains = new ArrayList<>();
		try (SqlStatement select = tables().sql(FINISHED_CHAINS).prepare(connection)) {
			select.bind("succeeded_before", finishedBefore.get(JobStatus.SUCCEEDED))
				.bind("failed_before", finishedBefore.get(JobStatus.FAILED))
				.bind("cancelled_before", finishedBefore.get(JobStatus.CANCELLED))
				.bind("limit", limit);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					chains.add(rows.getLong(1));
				}
			}
		}
		if (chains.isEmpty()) {
			return 0;
		}
		List<Long> steps = new ArrayList<>();
		try (SqlStatement lock = tables().sql(LOCK_CHAIN_STEPS).prepare(connection);
				ResultSet rows = lock.bindIds("chains", chains).executeQuery()) {
			while (rows.next()) {
				steps.add(rows.getLong(1));
				changes.unfinished(rows.getString(2), rows.getString(3));
			}
		}
		if (steps.isEmpty()) {
			return 0;
		}
		try (SqlStatement delete = tables().sql(DELETE_STEPS).prepare(connection)) {
			return delete.bindIds("ids", steps).executeUpdate();
		}
	}

	/**
	 * The queue's tables with their indexes as {@code fileBytes}, and InnoDB's free space
	 * in them as {@code freeBytes} (reused by new rows; given back only by
	 * {@code OPTIMIZE TABLE}).
	 */
	@Override
	public StorageStats storage() {
		return database().read("read the size of the queue's tables", (connection) -> {
			long bytes = 0;
			long free = 0;
			try (SqlStatement select = tables().sql(SIZES).prepare(connection)) {
				select.bindTexts("tables", tables().names());
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						bytes += rows.getLong(2) + rows.getLong(3);
						free += rows.getLong(5);
					}
				}
			}
			return new StorageStats(bytes, 0, free, false);
		});
	}

	/**
	 * {@code ANALYZE TABLE} of the queue's tables: refreshes the optimizer's statistics
	 * without blocking the queue. Files shrink only with {@code OPTIMIZE TABLE}, which
	 * rebuilds each table: run that yourself, off-peak, if you need the disk back.
	 */
	@Override
	public StorageStats vacuum() {
		eachTable("analyze the queue's tables", "ANALYZE TABLE ");
		return storage();
	}

}
