package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.sqlite.SQLiteConnection;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.store.StorageStats;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link RetentionStore} on SQLite.
 *
 * <ul>
 * <li>Deletes go batch by batch through {@link SqliteDatabase#write}, each in its own
 * {@code BEGIN IMMEDIATE} transaction, so the write lock is free between batches. They
 * find their rows through {@code jobs_finished_idx (status, type, finished_at)}, one type
 * at a time: a batch reads only rows it deletes. Attempts and events go by
 * {@code ON DELETE CASCADE} (every queue connection has {@code foreign_keys=ON}; the
 * schema check refuses a DataSource without it).</li>
 * <li>The types of a status are found by a skip-scan: one index seek per type, not a scan
 * of all jobs.</li>
 * <li>The lease is a row of {@code job_housekeeping}, taken with
 * {@code INSERT ... ON CONFLICT DO UPDATE
 * ... WHERE} the lease expired or is ours, so exactly one process holds it.</li>
 * <li>{@code PRAGMA incremental_vacuum(n)} runs in a short write transaction of its own
 * and frees at most {@code n} pages; it does nothing unless the file has
 * {@code auto_vacuum=INCREMENTAL}.</li>
 * <li>In WAL mode the database file shrinks only when a checkpoint has copied the whole
 * log back, so the cleaner checkpoints last.</li>
 * </ul>
 */
public final class SqliteRetentionStore implements RetentionStore {

	private static final String ACQUIRE_LEASE = """
			INSERT INTO {p}job_housekeeping (name, owner, lease_until) VALUES (:task, :owner, :until)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
			WHERE {p}job_housekeeping.lease_until <= :now OR {p}job_housekeeping.owner = excluded.owner
			""";

	private static final String RELEASE_LEASE = """
			UPDATE {p}job_housekeeping SET lease_until = 0 WHERE name = :task AND owner = :owner
			""";

	private static final String DELETE_SILENT_WORKERS = """
			DELETE FROM {workers} WHERE heartbeat_at < :heartbeat_before
			""";

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

	private static final String DELETE_CHAIN = """
			DELETE FROM {jobs} WHERE chain_id = :chain_id
			""";

	/**
	 * A truncating checkpoint waits for readers this long at most, blocking other
	 * processes' writers meanwhile.
	 */
	private static final int TRUNCATE_BUSY_TIMEOUT_MILLIS = 250;

	private final SqliteDatabase database;

	private final Sql acquireLease;

	private final Sql releaseLease;

	private final Sql firstFinishedType;

	private final Sql nextFinishedType;

	private final Sql deleteFinished;

	private final Sql nextChain;

	private final Sql chainKept;

	private final Sql deleteChain;

	private final Sql deleteSilentWorkers;

	private volatile Path file;

	public SqliteRetentionStore(SqliteDatabase database, Tables tables) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		Objects.requireNonNull(tables, "'tables' must not be null");
		this.acquireLease = tables.sql(ACQUIRE_LEASE);
		this.releaseLease = tables.sql(RELEASE_LEASE);
		this.firstFinishedType = tables.sql(FIRST_FINISHED_TYPE);
		this.nextFinishedType = tables.sql(NEXT_FINISHED_TYPE);
		this.deleteFinished = tables.sql(DELETE_FINISHED);
		this.nextChain = tables.sql(NEXT_CHAIN);
		this.chainKept = tables.sql(CHAIN_KEPT);
		this.deleteChain = tables.sql(DELETE_CHAIN);
		this.deleteSilentWorkers = tables.sql(DELETE_SILENT_WORKERS);
	}

	@Override
	public boolean acquireLease(String task, String owner, Instant now, Instant until) {
		return this.database.write("take the " + task + " lease", (connection) -> {
			try (SqlStatement acquire = this.acquireLease.prepare(connection)) {
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
			try (SqlStatement release = this.releaseLease.prepare(connection)) {
				return release.bind("task", task).bind("owner", owner).executeUpdate();
			}
		});
	}

	@Override
	public int deleteSilentWorkers(Instant heartbeatBefore) {
		return this.database.write("delete the rows of silent workers", (connection) -> {
			try (SqlStatement delete = this.deleteSilentWorkers.prepare(connection)) {
				return delete.bind("heartbeat_before", heartbeatBefore).executeUpdate();
			}
		});
	}

	@Override
	public List<String> finishedTypes(JobStatus status) {
		requireFinal(status);
		return this.database.read("list the types of " + status.dbValue() + " jobs", (connection) -> {
			List<String> types = new ArrayList<>();
			try (SqlStatement first = this.firstFinishedType.prepare(connection);
					SqlStatement next = this.nextFinishedType.prepare(connection)) {
				String type = first.bind("status", status.dbValue()).queryString();
				while (type != null) {
					types.add(type);
					type = next.bind("status", status.dbValue()).bind("after_type", type).queryString();
				}
			}
			return types;
		});
	}

	/**
	 * Walks the chains in id order, one index seek each, and deletes up to {@code limit}
	 * of those that may go, each whole, in one transaction.
	 */
	@Override
	public int deleteFinishedChains(Map<JobStatus, Instant> finishedBefore, int limit) {
		if (finishedBefore.isEmpty()) {
			return 0;
		}
		return this.database.write("delete expired chains", (connection) -> {
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
					deleted += delete.bind("chain_id", chainId).executeUpdate();
					chains++;
				}
			}
			return deleted;
		});
	}

	/** A status kept forever has no cutoff: no finished time is before the epoch. */
	private static Instant cutoff(Map<JobStatus, Instant> finishedBefore, JobStatus status) {
		return finishedBefore.getOrDefault(status, Instant.EPOCH);
	}

	@Override
	public int deleteFinished(JobStatus status, String type, Instant finishedBefore, int limit) {
		requireFinal(status);
		Objects.requireNonNull(type, "'type' must not be null");
		return this.database.write("delete expired " + status.dbValue() + " jobs", (connection) -> {
			try (SqlStatement delete = this.deleteFinished.prepare(connection)) {
				return delete.bind("status", status.dbValue())
					.bind("type", type)
					.bind("finished_before", finishedBefore)
					.bind("limit", limit)
					.executeUpdate();
			}
		});
	}

	@Override
	public StorageStats storage() {
		return this.database.read("read the database's size", this::storage);
	}

	private StorageStats storage(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			long pageSize = Pragmas.number(statement, "page_size");
			long freePages = Pragmas.number(statement, "freelist_count");
			boolean incremental = Pragmas.number(statement, "auto_vacuum") == 2;
			Path db = file(statement);
			return new StorageStats(Pragmas.sizeOf(db, 0), (db != null) ? Pragmas.sizeOf(Pragmas.walOf(db), 0) : 0,
					pageSize * freePages, incremental);
		}
	}

	@Override
	public long reclaimFreeSpace(int maxPages) {
		if (maxPages <= 0) {
			throw new IllegalArgumentException("'maxPages' must be positive");
		}
		return this.database.write("hand free pages back to the file system", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				if (Pragmas.number(statement, "auto_vacuum") != 2) {
					return 0L;
				}
				long pageSize = Pragmas.number(statement, "page_size");
				long before = Pragmas.number(statement, "freelist_count");
				// The pragma frees one page each time it is stepped, and the driver steps
				// a statement once:
				// sqlite3_exec steps it to the end.
				int code = connection.unwrap(SQLiteConnection.class)
					.getDatabase()
					._exec("PRAGMA incremental_vacuum(" + maxPages + ")");
				if (code != 0) {
					throw new SQLException("PRAGMA incremental_vacuum failed with SQLite result code " + code, null,
							code);
				}
				long pages = before - Pragmas.number(statement, "freelist_count");
				return pages * pageSize;
			}
		});
	}

	@Override
	public StorageStats checkpoint(boolean truncate) {
		if (!truncate) {
			// Passive: copies what no reader still needs and never waits, so it needs no
			// write lock.
			return this.database.read("checkpoint the write-ahead log", (connection) -> {
				try (Statement statement = connection.createStatement()) {
					checkpoint(statement, "PASSIVE");
				}
				return storage(connection);
			});
		}
		return this.database.writeOutsideTransaction("checkpoint and truncate the write-ahead log", (connection) -> {
			truncatingCheckpoint(connection);
			return storage(connection);
		});
	}

	@Override
	public StorageStats vacuum() {
		return this.database.writeOutsideTransaction("vacuum the database", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				statement.execute("VACUUM");
			}
			truncatingCheckpoint(connection);
			return storage(connection);
		});
	}

	@Override
	public StorageStats enableIncrementalVacuum() {
		return this.database.writeOutsideTransaction("switch incremental vacuum on", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				if (Pragmas.number(statement, "auto_vacuum") == 2) {
					return storage(connection);
				}
				statement.execute("PRAGMA auto_vacuum = INCREMENTAL");
				// The mode of an existing file changes only when VACUUM rewrites it.
				statement.execute("VACUUM");
				long mode = Pragmas.number(statement, "auto_vacuum");
				if (mode != 2) {
					throw new JobQueueException("SQLite kept auto_vacuum=" + mode + " on " + this.database.location()
							+ " after VACUUM; incremental vacuum could not be switched on. Check that no other "
							+ "connection holds the file open in a way that prevents VACUUM, then try again.");
				}
			}
			truncatingCheckpoint(connection);
			return storage(connection);
		});
	}

	private void truncatingCheckpoint(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			long busyTimeout = Pragmas.number(statement, "busy_timeout");
			statement.execute("PRAGMA busy_timeout = " + TRUNCATE_BUSY_TIMEOUT_MILLIS);
			try {
				checkpoint(statement, "TRUNCATE");
			}
			finally {
				statement.execute("PRAGMA busy_timeout = " + busyTimeout);
			}
		}
	}

	/**
	 * @return whether the checkpoint could not finish because of readers or writers
	 * (busy)
	 */
	private static boolean checkpoint(Statement statement, String mode) throws SQLException {
		try (ResultSet rows = statement.executeQuery("PRAGMA wal_checkpoint(" + mode + ")")) {
			return rows.next() && rows.getInt(1) != 0;
		}
	}

	private Path file(Statement statement) throws SQLException {
		Path known = this.file;
		if (known == null) {
			known = Pragmas.mainFile(statement);
			this.file = known;
		}
		return known;
	}

	private static void requireFinal(JobStatus status) {
		if (!Objects.requireNonNull(status, "'status' must not be null").isFinal()) {
			throw new IllegalArgumentException("Only finished jobs are deleted, not " + status);
		}
	}

}
