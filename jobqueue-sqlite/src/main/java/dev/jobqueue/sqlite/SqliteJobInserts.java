package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Links;
import dev.jobqueue.jdbc.RowInserts;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * SQLite's two inserts: one row at a time with {@code RETURNING} when a dedup key may
 * match an unfinished job, or one JDBC batch when no job has a key; the events go as a
 * batch after the rows.
 */
final class SqliteJobInserts extends RowInserts {

	/** A taken dedup key inserts nothing and returns no id. */
	private static final String INSERT_JOB_UNLESS_KEY_TAKEN = INSERT_JOB + """
			ON CONFLICT DO NOTHING
			RETURNING id
			""";

	SqliteJobInserts(Tables tables, Links links) {
		super(tables, links, INSERT_JOB_UNLESS_KEY_TAKEN, INSERT_JOB_WITHOUT_DEDUP_KEY);
	}

	/** {@code RETURNING} the id, or no row when the key is taken. */
	@Override
	protected Long insertRow(SqlStatement insert, NewJob job) throws SQLException {
		try (ResultSet rows = insert.bind("dedup_key", job.dedupKey()).executeQuery()) {
			return rows.next() ? rows.getLong(1) : null;
		}
	}

	/**
	 * One JDBC batch without {@code RETURNING}, which costs about half the insert rate
	 * per row on this schema (measured in the benchmark module). The transaction holds
	 * the write lock while the batch runs, so AUTOINCREMENT gives the batch consecutive
	 * ids ending at {@code last_insert_rowid()}.
	 */
	@Override
	protected List<Long> insertWithoutDedupKeys(Connection connection, List<NewJob> jobs, Instant now)
			throws SQLException {
		try (SqlStatement insert = this.insertJobsWithoutDedupKeys.prepare(connection);
				SqlStatement event = events().prepare(connection);
				Statement lastId = connection.createStatement()) {
			for (NewJob job : jobs) {
				bindJob(insert, job, now).addBatch();
			}
			insert.executeBatch();
			long last;
			try (ResultSet rows = lastId.executeQuery("SELECT last_insert_rowid()")) {
				rows.next();
				last = rows.getLong(1);
			}
			List<Long> ids = new ArrayList<>(jobs.size());
			for (long id = last - jobs.size() + 1; id <= last; id++) {
				ids.add(id);
				JobEvents.add(event, id, now, "ENQUEUED", null, null);
			}
			event.executeBatch();
			return ids;
		}
	}

}
