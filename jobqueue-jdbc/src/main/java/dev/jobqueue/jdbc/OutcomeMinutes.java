package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The rollup of run outcomes per minute, {@code job_outcome_minutes}: how many runs
 * succeeded, failed and were retried, or failed for good, in each minute since the epoch.
 * The transaction that ends runs adds its counts to one row, so the dashboard's chart of
 * a busy hour reads sixty rows per writer instead of an index entry per run.
 *
 * <p>
 * A row's key is the minute and a shard: each writer adds to its own shard (from its
 * worker id), so processes ending runs at once on a server database do not queue on one
 * row lock; the reader sums the shards. A transaction adds to one row only, after all its
 * other outcome writes (a claim that may follow in the same transaction skips locked rows
 * rather than wait): a transaction that waits for a rollup row waits for one that holds
 * nothing else it will wait for, so the wait never closes a deadlock.
 *
 * <p>
 * What a run counts as is decided when it ends, as the chart has always shown it: a
 * {@code SUCCEEDED} run as succeeded; a {@code FAILED} or {@code LEASE_EXPIRED} run as
 * failed for good when its job ended failed with it, else as retried. Snoozes, hand-backs
 * and cancelled runs are not counted.
 */
public final class OutcomeMinutes {

	/** A minute in milliseconds. */
	public static final long MINUTE_MILLIS = 60_000;

	/**
	 * The shard of lease recovery, which takes back other workers' runs: a constant, as
	 * recoveries are rare and short.
	 */
	static final String RECOVERY = "recovery";

	/**
	 * The sums per minute of {@code :from_minute} (inclusive) to {@code :to_minute}
	 * (exclusive): one range of the primary key.
	 */
	public static final String SUM = """
			SELECT minute, sum(succeeded), sum(retried), sum(failed) FROM {outcome_minutes}
			WHERE minute >= :from_minute AND minute < :to_minute
			GROUP BY minute
			""";

	private static final String FIRST_MINUTE = "SELECT min(minute) FROM {outcome_minutes}";

	private static final String DELETE_BEFORE = """
			DELETE FROM {outcome_minutes} WHERE minute < :before_minute
			""";

	private final Sql add;

	private final Sql sum;

	private final Sql firstMinute;

	private final Sql deleteBefore;

	public OutcomeMinutes(Tables tables) {
		Objects.requireNonNull(tables, "'tables' must not be null");
		this.add = tables.sql(tables.dialect()
			.upsertAdding("{outcome_minutes}", List.of("minute", "shard"), List.of("succeeded", "retried", "failed")));
		this.sum = tables.sql(SUM);
		this.firstMinute = tables.sql(FIRST_MINUTE);
		this.deleteBefore = tables.sql(DELETE_BEFORE);
	}

	/** The minute since the epoch that {@code at} falls in. */
	public static long minute(Instant at) {
		return Math.floorDiv(at.toEpochMilli(), MINUTE_MILLIS);
	}

	/** The shard of a writer: any stable number, distinct writers rarely sharing one. */
	static int shard(String writer) {
		return (writer != null) ? writer.hashCode() : 0;
	}

	/**
	 * Adds the counts of the runs a transaction ended at {@code now} to {@code writer}'s
	 * row of that minute, in the caller's transaction: one statement whatever the number
	 * of runs, none when nothing counts.
	 */
	public void add(Connection connection, String writer, Instant now, Counts counts) throws SQLException {
		if (counts.isEmpty()) {
			return;
		}
		try (SqlStatement add = this.add.prepare(connection)) {
			add.bind("minute", minute(now))
				.bind("shard", shard(writer))
				.bind("succeeded", counts.succeeded)
				.bind("retried", counts.retried)
				.bind("failed", counts.failed)
				.executeUpdate();
		}
	}

	/**
	 * Reads the sums of the minutes {@code fromMinute} (inclusive) to {@code toMinute}
	 * (exclusive), in minute order, one primary-key range; minutes without runs are left
	 * out.
	 */
	public void sum(Connection connection, long fromMinute, long toMinute, MinuteConsumer consumer)
			throws SQLException {
		try (SqlStatement select = this.sum.prepare(connection)) {
			select.bind("from_minute", fromMinute).bind("to_minute", toMinute);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					consumer.accept(rows.getLong(1), rows.getLong(2), rows.getLong(3), rows.getLong(4));
				}
			}
		}
	}

	/** The earliest minute kept, or {@code null} when there is none. */
	public Long firstMinute(Connection connection) throws SQLException {
		try (SqlStatement select = this.firstMinute.prepare(connection); ResultSet rows = select.executeQuery()) {
			if (!rows.next()) {
				return null;
			}
			long minute = rows.getLong(1);
			return rows.wasNull() ? null : minute;
		}
	}

	/** Deletes the rows of minutes before {@code beforeMinute}; returns how many. */
	public int deleteBefore(Connection connection, long beforeMinute) throws SQLException {
		try (SqlStatement delete = this.deleteBefore.prepare(connection)) {
			return delete.bind("before_minute", beforeMinute).executeUpdate();
		}
	}

	/** Receives a minute's sums. */
	@FunctionalInterface
	public interface MinuteConsumer {

		void accept(long minute, long succeeded, long retried, long failed) throws SQLException;

	}

	/** The runs a transaction ended, by what they count as. */
	public static final class Counts {

		private long succeeded;

		private long retried;

		private long failed;

		public void succeeded() {
			this.succeeded++;
		}

		/**
		 * A failed or lost run: failed for good if its job's new status is
		 * {@code failed}, else retried (pending again, or cancelled).
		 */
		public void failed(String newStatus) {
			if ("failed".equals(newStatus)) {
				this.failed++;
			}
			else {
				this.retried++;
			}
		}

		boolean isEmpty() {
			return this.succeeded == 0 && this.retried == 0 && this.failed == 0;
		}

	}

}
