package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

import dev.jobqueue.JobStatus;

/**
 * Exact counts of finished jobs per type and status, {@code job_finished_counts}, so a
 * snapshot reads a few rows per type instead of an index entry per finished job. Every
 * transaction that changes whether a job is finished, or which finished status it has,
 * collects what it changed in {@link Changes} and adds them here before it commits: a job
 * finishing (however it ends), a finished job retried (pending again), deleted by
 * retention or by hand, or enqueued already finished (it waits for a job that failed).
 *
 * <p>
 * A row's key is the type, the status and a shard. A writer adds to a shard of its own
 * (from its worker id, or one picked at random for a transaction of the application's),
 * so processes finishing jobs at once on a server database do not queue on one row lock;
 * the reader sums the shards, and a shard's count alone may be negative (retention
 * deleting what workers counted). Shards are few ({@link #SHARDS}), so the table holds at
 * most that many rows per type and status whatever the writers were.
 *
 * <p>
 * Like the outcome rollup ({@link OutcomeMinutes}), a transaction adds its counts last,
 * after every other write, its rows in one order (type, then status), and only the
 * outcome rollup's row after them: a transaction that waits for a count row waits for one
 * that holds no lock it will wait for in turn, so the wait never closes a deadlock.
 */
public final class FinishedCounts {

	/** How many shards the count of a type and status is spread over. */
	public static final int SHARDS = 16;

	/** The finished statuses as stored, in the order of {@link JobStatus}. */
	public static final List<String> STATUSES = Arrays.stream(JobStatus.values())
		.filter(JobStatus::isFinal)
		.map(JobStatus::dbValue)
		.toList();

	/** The finished statuses as a list of SQL literals: {@code 'succeeded', ...}. */
	public static final String STATUS_LIST = STATUSES.stream()
		.map((status) -> "'" + status + "'")
		.collect(Collectors.joining(", "));

	/** The counts per type and status, summed over the shards; zero counts left out. */
	public static final String SUM = """
			SELECT type, status, sum(jobs) FROM {finished_counts}
			GROUP BY type, status
			HAVING sum(jobs) <> 0
			""";

	/**
	 * The finished jobs among {@code :ids} per type and status, for a change of jobs
	 * whose rows the transaction holds.
	 */
	private static final String COUNT_AMONG = """
			SELECT type, status, count(*) FROM {jobs} WHERE id {in_ids :ids} AND status IN (%s)
			GROUP BY type, status
			""".formatted(STATUS_LIST);

	/**
	 * Counts the finished jobs afresh, as the migration that made the table fills it: for
	 * tests and benchmarks that put jobs in with SQL of their own.
	 */
	public static final List<String> RECOUNT = List.of("DELETE FROM {finished_counts}", """
			INSERT INTO {finished_counts} (type, status, shard, jobs)
			SELECT type, status, 0, count(*) FROM {jobs}
			WHERE finished_at IS NOT NULL AND status IN (%s)
			GROUP BY status, type
			""".formatted(STATUS_LIST));

	private final Sql add;

	private final Sql sum;

	private final Sql countAmong;

	public FinishedCounts(Tables tables) {
		Objects.requireNonNull(tables, "'tables' must not be null");
		this.add = tables.sql(tables.dialect()
			.upsertAdding("{finished_counts}", List.of("type", "status", "shard"), List.of("jobs")));
		this.sum = tables.sql(SUM);
		this.countAmong = tables.sql(COUNT_AMONG);
	}

	/**
	 * The shard of a writer: the same for each of its transactions; one at random for
	 * {@code null} (a transaction that may be the application's, holding who knows what
	 * locks after this).
	 */
	static int shard(String writer) {
		return (writer != null) ? Math.floorMod(writer.hashCode(), SHARDS)
				: ThreadLocalRandom.current().nextInt(SHARDS);
	}

	/**
	 * Adds {@code changes} to {@code writer}'s rows in the caller's transaction, type by
	 * type and status by status in order, one JDBC batch; nothing when nothing changed.
	 * Call it after every other write of the transaction (see the class description).
	 * @param writer the worker or part of the queue writing, or {@code null} for a shard
	 * at random
	 */
	public void add(Connection connection, String writer, Changes changes) throws SQLException {
		if (changes.isEmpty()) {
			return;
		}
		int shard = shard(writer);
		try (SqlStatement add = this.add.prepare(connection)) {
			int rows = 0;
			for (Map.Entry<String, Map<String, Long>> type : changes.counts.entrySet()) {
				for (Map.Entry<String, Long> status : type.getValue().entrySet()) {
					if (status.getValue() != 0) {
						add.bind("type", type.getKey())
							.bind("status", status.getKey())
							.bind("shard", shard)
							.bind("jobs", status.getValue().longValue())
							.addBatch();
						rows++;
					}
				}
			}
			if (rows > 0) {
				add.executeBatch();
			}
		}
	}

	/**
	 * Reads the counts: type → status → finished jobs, into {@code counts} (the maps of
	 * types it lacks are made).
	 */
	public void read(Connection connection, Map<String, Map<JobStatus, Long>> counts) throws SQLException {
		try (SqlStatement select = this.sum.prepare(connection); ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				counts.computeIfAbsent(rows.getString(1), (type) -> new EnumMap<>(JobStatus.class))
					.put(JobStatus.fromDbValue(rows.getString(2)), rows.getLong(3));
			}
		}
	}

	/**
	 * Adds to {@code changes} the finished jobs among {@code ids}, each {@code sign}
	 * times: {@code 1} after the transaction finished them, {@code -1} before it deletes
	 * them or makes them unfinished. The transaction must hold the jobs' rows (locked, or
	 * the whole database), so what it reads is what it changes.
	 */
	public void countAmong(Connection connection, Collection<Long> ids, int sign, Changes changes) throws SQLException {
		if (ids.isEmpty()) {
			return;
		}
		try (SqlStatement select = this.countAmong.prepare(connection);
				ResultSet rows = select.bindIds("ids", ids).executeQuery()) {
			while (rows.next()) {
				changes.add(rows.getString(1), rows.getString(2), sign * rows.getLong(3));
			}
		}
	}

	/**
	 * What one transaction changed in the counts of finished jobs, per type and status.
	 * Statuses that are not finished are ignored, so a caller may pass any new status.
	 */
	public static final class Changes {

		private final Map<String, Map<String, Long>> counts = new TreeMap<>();

		/** A job of {@code type} now has {@code status} (counted if finished). */
		public void finished(String type, String status) {
			add(type, status, 1);
		}

		/**
		 * A job of {@code type} had {@code status} and is deleted or unfinished now
		 * (counted off if it was finished).
		 */
		public void unfinished(String type, String status) {
			add(type, status, -1);
		}

		/** Adds {@code count} jobs of {@code type} and {@code status} (if finished). */
		public void add(String type, String status, long count) {
			if (count != 0 && STATUSES.contains(status)) {
				this.counts.computeIfAbsent(type, (key) -> new TreeMap<>()).merge(status, count, Long::sum);
			}
		}

		/** Whether no count changed. */
		public boolean isEmpty() {
			return this.counts.values()
				.stream()
				.allMatch((byStatus) -> byStatus.values().stream().allMatch((n) -> n == 0));
		}

		/** The changes per type and status, for tests. */
		@Override
		public String toString() {
			return this.counts.toString();
		}

	}

}
