package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.jobqueue.core.store.QueueSnapshot.StorageState;
import dev.jobqueue.jdbc.InsightStatements;
import dev.jobqueue.jdbc.JdbcQueueInsights;
import dev.jobqueue.jdbc.OutcomeMinutes;
import dev.jobqueue.jdbc.JobColumns;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.StorageFacts;
import dev.jobqueue.jdbc.Tables;

/**
 * {@link JdbcQueueInsights} on SQLite: the storage is the database file's pages and its
 * write-ahead log; the plans of the statements are readable for tests.
 */
public final class SqliteQueueInsights extends JdbcQueueInsights {

	/** Held jobs have a run_at no clock reaches (see HeldEnqueue). */
	private static final String HELD_WHERE = " WHERE held_run_at IS NOT NULL AND run_at = :never"
			+ " AND created_at < :enqueued_before";

	private final Sql heldCount;

	private final Sql held;

	public SqliteQueueInsights(SqliteDatabase database, Tables tables) {
		super(database, tables, new FileFacts(database));
		this.heldCount = tables.sql("SELECT count(*) FROM {jobs}" + HELD_WHERE);
		this.held = tables
			.sql("SELECT " + JobColumns.SUMMARY + " FROM {jobs}" + HELD_WHERE + " ORDER BY id LIMIT :limit");
	}

	@Override
	public HeldJobs held(Instant enqueuedBefore, int limit) {
		return database().read("find jobs held since before " + enqueuedBefore, (connection) -> {
			long count;
			try (SqlStatement select = this.heldCount.prepare(connection)) {
				count = select.bind("never", HeldEnqueue.NEVER).bind("enqueued_before", enqueuedBefore).queryLong();
			}
			if (count == 0) {
				return new HeldJobs(0, List.of());
			}
			try (SqlStatement select = this.held.prepare(connection)) {
				return new HeldJobs(count,
						JobColumns.summaries(select.bind("never", HeldEnqueue.NEVER)
							.bind("enqueued_before", enqueuedBefore)
							.bind("limit", limit), tables().dialect()));
			}
		});
	}

	/**
	 * The query plans of the snapshot's statements but the worker table's, for tests that
	 * each uses an index.
	 */
	Map<String, List<String>> explainSnapshot(Instant now) {
		return database().read("explain the snapshot queries", (connection) -> {
			Map<String, List<String>> plans = new LinkedHashMap<>();
			for (Map.Entry<String, String> statement : statements().snapshot().entrySet()) {
				Sql explain = tables().sql("EXPLAIN QUERY PLAN " + statement.getValue());
				try (SqlStatement select = explain.prepare(connection)) {
					for (String name : explain.names()) {
						select.bind(name, name.equals("limit") ? 10 : now.toEpochMilli());
					}
					plans.put(statement.getKey(), plan(select));
				}
			}
			return plans;
		});
	}

	/**
	 * The query plans of the statements behind the snapshot's held jobs and the key list,
	 * for tests that each reads an index.
	 */
	Map<String, List<String>> explainFlow(Instant now) {
		return database().read("explain the flow control counts", (connection) -> {
			Map<String, List<String>> plans = new LinkedHashMap<>();
			for (Map.Entry<String, String> statement : new TreeMap<>(flowStatements()).entrySet()) {
				Sql explain = tables().sql("EXPLAIN QUERY PLAN " + statement.getValue());
				try (SqlStatement select = explain.prepare(connection)) {
					for (String name : explain.names()) {
						if (name.equals("now") || name.equals("since")) {
							select.bind(name, now);
						}
						else {
							select.bind(name, name.equals("status") ? "running" : "charge");
						}
					}
					plans.put(statement.getKey(), plan(select));
				}
			}
			return plans;
		});
	}

	/** The query plan of the rollup's read behind {@link #outcomes}, for tests. */
	List<String> explainOutcomeMinutes() {
		return database().read("explain the outcome rollup", (connection) -> {
			try (SqlStatement select = explain(connection, OutcomeMinutes.SUM)) {
				return plan(select.bind("from_minute", 0L).bind("to_minute", 60L));
			}
		});
	}

	/** The query plan of a job list, for tests. */
	List<String> explainJobs(JobQuery query) {
		return database().read("explain a job list", (connection) -> {
			try (SqlStatement select = explain(connection, statements().jobs(query))) {
				return plan(InsightStatements.bindJobs(select, query));
			}
		});
	}

	private SqlStatement explain(Connection connection, String statement) throws SQLException {
		return tables().sql("EXPLAIN QUERY PLAN " + statement).prepare(connection);
	}

	private static List<String> plan(SqlStatement explain) throws SQLException {
		List<String> lines = new ArrayList<>();
		try (ResultSet rows = explain.executeQuery()) {
			while (rows.next()) {
				lines.add(rows.getString("detail"));
			}
		}
		return lines;
	}

	/** The database file, its write-ahead log and its pages, read with pragmas. */
	private record FileFacts(SqliteDatabase database) implements StorageFacts {

		@Override
		public StorageState state(Connection connection) throws SQLException {
			try (Statement statement = connection.createStatement()) {
				long pageSize = Pragmas.number(statement, "page_size");
				long pageCount = Pragmas.number(statement, "page_count");
				long freePages = Pragmas.number(statement, "freelist_count");
				Path file = Pragmas.mainFile(statement);
				long databaseBytes = (file != null) ? Pragmas.sizeOf(file, pageSize * pageCount) : pageSize * pageCount;
				long walBytes = (file != null) ? Pragmas.sizeOf(Pragmas.walOf(file), 0) : 0;
				return new StorageState((file != null) ? file.toString() : this.database.location(), databaseBytes,
						walBytes, pageSize, pageCount, freePages, this.database.busyRetries());
			}
		}

		/** The connection's open mode, then the file's. */
		@Override
		public String writeRefusal(Connection connection) throws SQLException {
			String refusal = connectionRefusal(connection);
			refusal = (refusal != null) ? refusal : SqliteErrors.writeRefusal(this.database.location());
			return (refusal != null) ? "the database is read-only: " + refusal + ". Make the file and its -wal/-shm "
					+ "files writable by this process, on a file system mounted read-write." : null;
		}

		private static String connectionRefusal(Connection connection) throws SQLException {
			if (connection.isReadOnly()) {
				return "the connection was opened read-only";
			}
			try (Statement statement = connection.createStatement();
					ResultSet rows = statement.executeQuery("PRAGMA query_only")) {
				if (rows.next() && rows.getInt(1) != 0) {
					return "PRAGMA query_only is on";
				}
			}
			return null;
		}

	}

}
