package dev.jobqueue.sqlite;

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
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JdbcRetentionStore} on SQLite.
 *
 * <ul>
 * <li>Deletes go batch by batch through {@link SqliteDatabase#write}, each in its own
 * {@code BEGIN IMMEDIATE} transaction, so the write lock is free between batches. A batch
 * names {@code jobs_finished_idx} ({@code INDEXED BY}), one type at a time. Attempts and
 * events go by {@code ON DELETE CASCADE} (every queue connection has
 * {@code foreign_keys=ON}; the schema check refuses a DataSource without it).</li>
 * <li>The types of a status are found by a skip-scan: one index seek per type, not a scan
 * of all jobs.</li>
 * <li>Chains are walked in id order, one seek of the chain index each.</li>
 * <li>Sizes and {@code VACUUM} are the file's ({@link SqliteFileMaintenance}).</li>
 * </ul>
 */
public final class SqliteRetentionStore extends JdbcRetentionStore {

	private static final String FIRST_FINISHED_TYPE = """
			SELECT type FROM {jobs} INDEXED BY {p}jobs_finished_idx
			WHERE status = :status AND finished_at IS NOT NULL
			ORDER BY type LIMIT 1
			""";

	private static final String NEXT_FINISHED_TYPE = """
			SELECT type FROM {jobs} INDEXED BY {p}jobs_finished_idx
			WHERE status = :status AND type > :after_type AND finished_at IS NOT NULL
			ORDER BY type LIMIT 1
			""";

	/**
	 * Chain steps go whole (see {@link #DELETE_CHAIN}); a job an unfinished job waits for
	 * stays while that one is unfinished.
	 */
	private static final String DELETE_FINISHED = """
			DELETE FROM {jobs} WHERE id IN (
			    SELECT j.id FROM {jobs} j INDEXED BY {p}jobs_finished_idx
			    WHERE j.status = :status AND j.type = :type AND j.finished_at < :finished_before
			      AND j.chain_id IS NULL
			      AND NOT EXISTS (SELECT 1 FROM {dependencies} d JOIN {jobs} w ON w.id = d.job_id
			                      WHERE d.depends_on = j.id AND w.status IN ('waiting', 'pending', 'running'))
			    LIMIT :limit)
			""";

	/** The next chain after {@code :after}: one seek of the chain index per chain. */
	private static final String NEXT_CHAIN = """
			SELECT chain_id FROM {jobs} WHERE chain_id > :after ORDER BY chain_id LIMIT 1
			""";

	/**
	 * Whether a chain must stay: a step unfinished or finished too recently for its
	 * status, or a step that an unfinished job (outside the chain) waits for.
	 */
	private static final String CHAIN_KEPT = """
			SELECT EXISTS (
			    SELECT 1 FROM {jobs} s WHERE s.chain_id = :chain_id
			      AND NOT ((s.status = 'succeeded' AND s.finished_at < :succeeded_before)
			            OR (s.status = 'failed' AND s.finished_at < :failed_before)
			            OR (s.status = 'cancelled' AND s.finished_at < :cancelled_before)))
			    OR EXISTS (
			    SELECT 1 FROM {jobs} s JOIN {dependencies} d ON d.depends_on = s.id JOIN {jobs} w ON w.id = d.job_id
			    WHERE s.chain_id = :chain_id AND w.status IN ('waiting', 'pending', 'running'))
			""";

	/** Each step deleted, to be counted off the finished jobs. */
	private static final String DELETE_CHAIN = """
			DELETE FROM {jobs} WHERE chain_id = :chain_id
			RETURNING type, status
			""";

	private final SqliteFileMaintenance files;

	private final Sql firstFinishedType;

	private final Sql nextFinishedType;

	private final Sql nextChain;

	private final Sql chainKept;

	private final Sql deleteChain;

	public SqliteRetentionStore(SqliteDatabase database, Tables tables) {
		super(database, tables, DELETE_FINISHED);
		this.files = new SqliteFileMaintenance(database);
		this.firstFinishedType = tables.sql(FIRST_FINISHED_TYPE);
		this.nextFinishedType = tables.sql(NEXT_FINISHED_TYPE);
		this.nextChain = tables.sql(NEXT_CHAIN);
		this.chainKept = tables.sql(CHAIN_KEPT);
		this.deleteChain = tables.sql(DELETE_CHAIN);
	}

	/** The upkeep of the file these jobs are in. */
	public SqliteFileMaintenance files() {
		return this.files;
	}

	@Override
	protected List<String> finishedTypes(Connection connection, String status) throws SQLException {
		List<String> types = new ArrayList<>();
		try (SqlStatement first = this.firstFinishedType.prepare(connection);
				SqlStatement next = this.nextFinishedType.prepare(connection)) {
			String type = first.bind("status", status).queryString();
			while (type != null) {
				types.add(type);
				type = next.bind("status", status).bind("after_type", type).queryString();
			}
		}
		return types;
	}

	/**
	 * Walks the chains in id order, one index seek each, and deletes up to {@code limit}
	 * of those that may go, each whole.
	 */
	@Override
	protected int deleteFinishedChains(Connection connection, Map<JobStatus, Instant> finishedBefore, int limit,
			FinishedCounts.Changes changes) throws SQLException {
		int deleted = 0;
		int chains = 0;
		long after = 0;
		try (SqlStatement next = this.nextChain.prepare(connection);
				SqlStatement kept = this.chainKept.prepare(connection);
				SqlStatement delete = this.deleteChain.prepare(connection)) {
			while (chains < limit) {
				Long chainId = null;
				try (ResultSet rows = next.bind("after", after).executeQuery()) {
					if (rows.next()) {
						chainId = rows.getLong(1);
					}
				}
				if (chainId == null) {
					break;
				}
				after = chainId;
				kept.bind("chain_id", chainId)
					.bind("succeeded_before", cutoff(finishedBefore, JobStatus.SUCCEEDED))
					.bind("failed_before", cutoff(finishedBefore, JobStatus.FAILED))
					.bind("cancelled_before", cutoff(finishedBefore, JobStatus.CANCELLED));
				if (kept.queryLong() == 1) {
					continue;
				}
				try (ResultSet rows = delete.bind("chain_id", chainId).executeQuery()) {
					while (rows.next()) {
						changes.unfinished(rows.getString(1), rows.getString(2));
						deleted++;
					}
				}
				chains++;
			}
		}
		return deleted;
	}

	/** A status kept forever has no cutoff: no finished time is before the epoch. */
	private static Instant cutoff(Map<JobStatus, Instant> finishedBefore, JobStatus status) {
		return finishedBefore.getOrDefault(status, Instant.EPOCH);
	}

	@Override
	public StorageStats storage() {
		return this.files.storage();
	}

	@Override
	public StorageStats vacuum() {
		return this.files.vacuum();
	}

}
