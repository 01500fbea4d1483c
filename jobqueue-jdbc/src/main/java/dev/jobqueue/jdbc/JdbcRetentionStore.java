package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.RetentionStore;

/**
 * The {@link RetentionStore} on any JDBC database: the cleanup lease, worker pruning and
 * the batched deletes by age, each call its own short transaction so the cleaner can stop
 * between any two.
 *
 * <ul>
 * <li>The lease is a row of {@code job_housekeeping}, taken with
 * {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE} the lease expired or is ours, so
 * exactly one process holds it.</li>
 * <li>The outcome rollup ({@link OutcomeMinutes}) loses its oldest minutes a day's worth
 * per transaction.</li>
 * <li>A batch deletes jobs of one status and type that finished before the cutoff, found
 * through {@code jobs_finished_idx (status, type, finished_at)} so it reads only rows it
 * deletes; attempts and events go by {@code ON DELETE CASCADE}. Chain steps are skipped
 * (chains go whole), and so are jobs an unfinished job waits for. The jobs a batch
 * deletes are counted off the counts of finished jobs ({@link FinishedCounts}) in its
 * transaction.</li>
 * </ul>
 * A store gives the statement of a batch (how the database is made to use the index), how
 * it lists the types of a status in one index seek per type, how it deletes whole chains,
 * and the sizes of its data.
 */
public abstract class JdbcRetentionStore implements RetentionStore {

	/**
	 * Takes the lease where it is free, expired or already ours; {@link #LEASE_HELD}
	 * tells whether it did.
	 */
	public static final String ACQUIRE_LEASE = """
			INSERT INTO {housekeeping} AS h (name, owner, lease_until) VALUES (:task, :owner, :until)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
			WHERE h.lease_until <= :now OR h.owner = excluded.owner
			""";

	/**
	 * Whether the lease is ours until the time just asked for: read back rather than
	 * counted, since not every database counts an upsert's rows alike.
	 */
	private static final String LEASE_HELD = """
			SELECT 1 FROM {housekeeping} WHERE name = :task AND owner = :owner AND lease_until = :until
			""";

	private static final String RELEASE_LEASE = """
			UPDATE {housekeeping} SET lease_until = :expired WHERE name = :task AND owner = :owner
			""";

	private static final String DELETE_SILENT_WORKERS = """
			DELETE FROM {workers} WHERE heartbeat_at < :heartbeat_before
			""";

	/** The writer of retention's changes to the counts of finished jobs. */
	private static final String WRITER = "retention";

	private final JdbcDatabase database;

	private final Tables tables;

	private final Sql acquireLease;

	private final Sql leaseHeld;

	private final Sql releaseLease;

	private final Sql deleteSilentWorkers;

	private final Sql deleteFinished;

	private final OutcomeMinutes outcomeMinutes;

	private final FinishedCounts finishedCounts;

	/**
	 * @param deleteFinished the statement of one batch: deletes up to {@code :limit} jobs
	 * of {@code :status} and {@code :type} finished before {@code :finished_before}, not
	 * chain steps and not jobs an unfinished job waits for
	 */
	protected JdbcRetentionStore(JdbcDatabase database, Tables tables, String deleteFinished) {
		this(database, tables, deleteFinished, ACQUIRE_LEASE);
	}

	/**
	 * @param acquireLease the statement that takes the cleanup lease ({@code :task},
	 * {@code :owner}, {@code :until}) where it is free, expired at {@code :now} or
	 * already the owner's, for a database without {@link #ACQUIRE_LEASE}'s upsert
	 */
	protected JdbcRetentionStore(JdbcDatabase database, Tables tables, String deleteFinished, String acquireLease) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.acquireLease = tables.sql(acquireLease);
		this.leaseHeld = tables.sql(LEASE_HELD);
		this.releaseLease = tables.sql(RELEASE_LEASE);
		this.deleteSilentWorkers = tables.sql(DELETE_SILENT_WORKERS);
		this.deleteFinished = tables.sql(Objects.requireNonNull(deleteFinished, "'deleteFinished' must not be null"));
		this.outcomeMinutes = new OutcomeMinutes(tables);
		this.finishedCounts = new FinishedCounts(tables);
	}

	protected final JdbcDatabase database() {
		return this.database;
	}

	protected final Tables tables() {
		return this.tables;
	}

	@Override
	public final boolean acquireLease(String task, String owner, Instant now, Instant until) {
		return this.database.write("take the " + task + " lease", (connection) -> {
			try (SqlStatement acquire = this.acquireLease.prepare(connection)) {
				acquire.bind("task", task).bind("owner", owner).bind("until", until).bind("now", now).executeUpdate();
			}
			try (SqlStatement held = this.leaseHeld.prepare(connection)) {
				return held.bind("task", task).bind("owner", owner).bind("until", until).queryAny();
			}
		});
	}

	@Override
	public final void releaseLease(String task, String owner) {
		this.database.write("release the " + task + " lease", (connection) -> {
			try (SqlStatement release = this.releaseLease.prepare(connection)) {
				return release.bind("expired", Instant.EPOCH).bind("task", task).bind("owner", owner).executeUpdate();
			}
		});
	}

	@Override
	public final int deleteSilentWorkers(Instant heartbeatBefore) {
		return this.database.write("delete the rows of silent workers", (connection) -> {
			try (SqlStatement delete = this.deleteSilentWorkers.prepare(connection)) {
				return delete.bind("heartbeat_before", heartbeatBefore).executeUpdate();
			}
		});
	}

	@Override
	public final int deleteOutcomeMinutes(Instant before, int maxMinutes) {
		long beforeMinute = OutcomeMinutes.minute(before);
		return this.database.write("delete old outcome counts", (connection) -> {
			Long first = this.outcomeMinutes.firstMinute(connection);
			if (first == null || first >= beforeMinute) {
				return 0;
			}
			return this.outcomeMinutes.deleteBefore(connection, Math.min(beforeMinute, first + maxMinutes));
		});
	}

	@Override
	public final List<String> finishedTypes(JobStatus status) {
		requireFinal(status);
		return this.database.read("list the types of " + status.dbValue() + " jobs",
				(connection) -> finishedTypes(connection, status.dbValue()));
	}

	/**
	 * The types that have finished jobs in {@code status}, in order, one index seek per
	 * type rather than a scan of the jobs.
	 */
	protected abstract List<String> finishedTypes(Connection connection, String status) throws SQLException;

	@Override
	public final int deleteFinished(JobStatus status, String type, Instant finishedBefore, int limit) {
		requireFinal(status);
		Objects.requireNonNull(type, "'type' must not be null");
		return this.database.write("delete expired " + status.dbValue() + " jobs", (connection) -> {
			int deleted;
			try (SqlStatement delete = this.deleteFinished.prepare(connection)) {
				delete.bind("status", status.dbValue())
					.bind("type", type)
					.bind("finished_before", finishedBefore)
					.bind("limit", limit);
				deleted = deleted(delete);
			}
			FinishedCounts.Changes changes = new FinishedCounts.Changes();
			changes.add(type, status.dbValue(), -deleted);
			this.finishedCounts.add(connection, WRITER, changes);
			return deleted;
		});
	}

	/**
	 * Runs a batch's delete statement: by default its update count; a store whose
	 * statement returns the count as a row (because it deletes more than the jobs) reads
	 * it there. The statement deletes only jobs of the status and type it was given
	 * (asked again of each row it deletes, where another transaction may have retried the
	 * job meanwhile).
	 * @return how many jobs the batch deleted
	 */
	protected int deleted(SqlStatement delete) throws SQLException {
		return delete.executeUpdate();
	}

	@Override
	public final int deleteFinishedChains(Map<JobStatus, Instant> finishedBefore, int limit) {
		Objects.requireNonNull(finishedBefore, "'finishedBefore' must not be null");
		if (limit <= 0 || finishedBefore.isEmpty()) {
			return 0;
		}
		return this.database.write("delete expired chains", (connection) -> {
			FinishedCounts.Changes changes = new FinishedCounts.Changes();
			int deleted = deleteFinishedChains(connection, finishedBefore, limit, changes);
			this.finishedCounts.add(connection, WRITER, changes);
			return deleted;
		});
	}

	/**
	 * Deletes up to {@code limit} whole chains as {@link #deleteFinishedChains(Map, int)}
	 * says, in the caller's transaction.
	 * @param changes where each step deleted is counted off, by its type and status
	 * @return how many jobs (steps) were deleted
	 */
	protected abstract int deleteFinishedChains(Connection connection, Map<JobStatus, Instant> finishedBefore,
			int limit, FinishedCounts.Changes changes) throws SQLException;

	/**
	 * Runs {@code command} followed by each of the queue's tables ({@link Tables#NAMES},
	 * qualified), outside a transaction: upkeep of the server's, such as
	 * {@code VACUUM (ANALYZE) }.
	 * @param action what it does, for messages
	 */
	protected final void eachTable(String action, String command) {
		this.database.read(action, (connection) -> {
			try (Statement statement = connection.createStatement()) {
				for (String table : Tables.NAMES) {
					statement.execute(command + this.tables.qualified(table));
				}
			}
			return null;
		});
	}

	private static void requireFinal(JobStatus status) {
		if (!Objects.requireNonNull(status, "'status' must not be null").isFinal()) {
			throw new IllegalArgumentException("Only finished jobs are deleted, not " + status);
		}
	}

}
