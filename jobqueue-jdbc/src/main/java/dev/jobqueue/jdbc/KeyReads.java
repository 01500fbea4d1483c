package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The reads of one part of a claim by rounds ({@link FlowClaims#read}), one statement
 * each, for a store that reads keys one at a time (SQLite, MySQL/MariaDB). The store
 * writes the statements for its own indexes ({@link Statements}); how they are bound and
 * read is the same everywhere.
 */
public final class KeyReads implements FlowClaims.Reads {

	/**
	 * A store's statements of the reads of keys, with the parameters they take and the
	 * columns they return.
	 *
	 * @param nextKey the first key of {@code :type} with a pending job after
	 * {@code :after} and, when {@code :until} is not null, not after it: the key
	 * @param countOfKey the jobs of {@code :type} and {@code :key} in {@code :status}: a
	 * count
	 * @param firstOfKey the key's lowest pending job, due or not: id, priority, run_at
	 * @param firstOfKeyWithAttemptLeft the same, or no row if its claim would be its last
	 * attempt
	 * @param dueOfKey the key's pending jobs due at {@code :now} in id order, at most
	 * {@code :limit}: id, priority, run_at
	 * @param dueOfKeyWithAttemptLeft the same, of jobs with an attempt left after this
	 * claim only
	 * @param startsInWindow the starts of {@code :type} and {@code :key} after
	 * {@code :since}: their count and the oldest
	 */
	public record Statements(Sql nextKey, Sql countOfKey, Sql firstOfKey, Sql firstOfKeyWithAttemptLeft, Sql dueOfKey,
			Sql dueOfKeyWithAttemptLeft, Sql startsInWindow) {

		/** Where {@link #parse} puts the filter of the part that waits for a slot. */
		public static final String ATTEMPT_LEFT = "{attempt_left}";

		/**
		 * Parses a store's statements, named as the components are.
		 * @param dueOfKey both due statements: {@value #ATTEMPT_LEFT} stands where the
		 * filter of jobs with an attempt left goes
		 */
		public static Statements parse(Tables tables, String nextKey, String countOfKey, String firstOfKey,
				String firstOfKeyWithAttemptLeft, String dueOfKey, String startsInWindow) {
			return new Statements(tables.sql(nextKey), tables.sql(countOfKey), tables.sql(firstOfKey),
					tables.sql(firstOfKeyWithAttemptLeft), tables.sql(dueOfKey.replace(ATTEMPT_LEFT, "")),
					tables.sql(dueOfKey.replace(ATTEMPT_LEFT, "AND attempts + 1 < max_attempts")),
					tables.sql(startsInWindow));
		}

		/**
		 * The reads of one claim part on {@code connection}.
		 * @param attemptLeft whether the part takes only jobs with an attempt left after
		 * this claim (the part that waits for a slot)
		 * @param now the claim's time
		 */
		public FlowClaims.Reads reads(Connection connection, boolean attemptLeft, Instant now) {
			return new KeyReads(this, connection, attemptLeft, now);
		}

	}

	private final Statements statements;

	private final Connection connection;

	private final boolean attemptLeft;

	private final Instant now;

	/** How the statements' instants are read: their tables' dialect. */
	private final Dialect dialect;

	private KeyReads(Statements statements, Connection connection, boolean attemptLeft, Instant now) {
		this.statements = statements;
		this.connection = connection;
		this.attemptLeft = attemptLeft;
		this.now = now;
		this.dialect = statements.startsInWindow().dialect();
	}

	@Override
	public String nextKey(String type, String after, String until) throws SQLException {
		try (SqlStatement select = this.statements.nextKey().prepare(this.connection)) {
			return select.bind("type", type).bind("after", after).bind("until", until).queryString();
		}
	}

	@Override
	public int running(String type, String key) throws SQLException {
		return count(type, key, "running");
	}

	@Override
	public boolean failed(String type, String key) throws SQLException {
		return count(type, key, "failed") > 0;
	}

	private int count(String type, String key, String status) throws SQLException {
		try (SqlStatement select = this.statements.countOfKey().prepare(this.connection)) {
			return (int) select.bind("type", type).bind("status", status).bind("key", key).queryLong();
		}
	}

	@Override
	public List<FlowClaims.Candidate> firstPending(String type, String key) throws SQLException {
		Sql statement = this.attemptLeft ? this.statements.firstOfKeyWithAttemptLeft() : this.statements.firstOfKey();
		try (SqlStatement select = statement.prepare(this.connection)) {
			return jobs(select.bind("type", type).bind("key", key), type, key);
		}
	}

	@Override
	public List<FlowClaims.Candidate> dueJobs(String type, String key, int most) throws SQLException {
		Sql statement = this.attemptLeft ? this.statements.dueOfKeyWithAttemptLeft() : this.statements.dueOfKey();
		try (SqlStatement select = statement.prepare(this.connection)) {
			return jobs(select.bind("type", type).bind("key", key).bind("now", this.now).bind("limit", most), type,
					key);
		}
	}

	private List<FlowClaims.Candidate> jobs(SqlStatement select, String type, String key) throws SQLException {
		List<FlowClaims.Candidate> jobs = new ArrayList<>();
		try (ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				jobs.add(new FlowClaims.Candidate(rows.getLong(1), type, key, rows.getInt(2),
						this.dialect.instant(rows, 3)));
			}
		}
		return jobs;
	}

	@Override
	public FlowClaims.Starts starts(String type, String key, Instant windowStart) throws SQLException {
		try (SqlStatement select = this.statements.startsInWindow().prepare(this.connection);
				ResultSet rows = select.bind("type", type).bind("key", key).bind("since", windowStart).executeQuery()) {
			rows.next();
			return new FlowClaims.Starts(rows.getInt(1), this.dialect.instant(rows, 2));
		}
	}

}
