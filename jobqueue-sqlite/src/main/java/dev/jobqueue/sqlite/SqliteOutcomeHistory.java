package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.core.store.QueueInsights.Outcomes;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * Runs ended per time slot, for {@link SqliteQueueInsights#outcomes}: two range reads of
 * {@code job_attempts_outcome_idx} (V7), one for successes (from the index alone) and one
 * for failures, which looks each failed run's job up by primary key to tell a failure for
 * good (the job failed, and this was its last run) from one that was retried. Failures
 * are the minority, so the look-ups stay few.
 */
final class SqliteOutcomeHistory {

	private static final String SUCCEEDED = """
			SELECT finished_at / :slot, count(*) FROM {attempts} INDEXED BY {p}job_attempts_outcome_idx
			WHERE outcome = 'SUCCEEDED' AND finished_at >= :from AND finished_at < :to
			GROUP BY 1
			""";

	private static final String FAILED = """
			SELECT a.finished_at / :slot, coalesce(j.status = 'failed' AND j.runs = a.run, 0), count(*)
			FROM {attempts} a INDEXED BY {p}job_attempts_outcome_idx LEFT JOIN {jobs} j ON j.id = a.job_id
			WHERE a.outcome IN ('FAILED', 'LEASE_EXPIRED') AND a.finished_at >= :from AND a.finished_at < :to
			GROUP BY 1, 2
			""";

	private final Tables tables;

	private final Sql succeeded;

	private final Sql failed;

	SqliteOutcomeHistory(Tables tables) {
		this.tables = tables;
		this.succeeded = tables.sql(SUCCEEDED);
		this.failed = tables.sql(FAILED);
	}

	List<Outcomes> outcomes(Connection connection, Instant from, Instant to, Duration slot) throws SQLException {
		long slotMillis = slot.toMillis();
		if (slotMillis < 1000) {
			throw new IllegalArgumentException("A slot must be at least a second long, not " + slot);
		}
		long first = Math.floorDiv(from.toEpochMilli(), slotMillis);
		long end = Math.floorDiv(to.toEpochMilli() - 1, slotMillis) + 1;
		if (end <= first) {
			return List.of();
		}
		long[][] counts = new long[(int) Math.min(end - first, 100_000)][3];
		try (SqlStatement select = bind(this.succeeded.prepare(connection), slotMillis, first, end);
				ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				add(counts, rows.getLong(1) - first, 0, rows.getLong(2));
			}
		}
		try (SqlStatement select = bind(this.failed.prepare(connection), slotMillis, first, end);
				ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				add(counts, rows.getLong(1) - first, (rows.getInt(2) == 1) ? 1 : 2, rows.getLong(3));
			}
		}
		List<Outcomes> outcomes = new ArrayList<>(counts.length);
		for (int i = 0; i < counts.length; i++) {
			outcomes.add(new Outcomes(Instant.ofEpochMilli((first + i) * slotMillis), counts[i][0], counts[i][1],
					counts[i][2]));
		}
		return outcomes;
	}

	private static SqlStatement bind(SqlStatement select, long slotMillis, long first, long end) throws SQLException {
		return select.bind("slot", slotMillis).bind("from", first * slotMillis).bind("to", end * slotMillis);
	}

	private static void add(long[][] counts, long index, int column, long count) {
		if (index >= 0 && index < counts.length) {
			counts[(int) index][column] += count;
		}
	}

	/** The query plans, for tests that both read the index. */
	List<String> explain(Connection connection) throws SQLException {
		List<String> lines = new ArrayList<>();
		for (String statement : List.of(SUCCEEDED, FAILED)) {
			try (SqlStatement select = bind(this.tables.sql("EXPLAIN QUERY PLAN " + statement).prepare(connection),
					60_000, 0, 1); ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					lines.add(rows.getString("detail"));
				}
			}
		}
		return lines;
	}

}
