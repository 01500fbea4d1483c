package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.core.store.NewJob;

/**
 * Jobs inserted a row at a time, for a database whose insert of one row says the row's id
 * by itself (SQLite's {@code RETURNING}, MySQL's generated key) but that has no arrays to
 * insert many in one statement: each job is bound with {@link #bindJob} and goes in
 * alone, and the {@code ENQUEUED} events go in one batch after the rows. A store writes
 * how one row's id comes back, and when its dedup key was taken.
 */
public abstract class RowInserts extends JdbcJobInserts {

	private final JobEvents events;

	protected RowInserts(Tables tables, Links links, String insertJob, String insertJobsWithoutDedupKeys) {
		super(tables, links, insertJob, insertJobsWithoutDedupKeys);
		this.events = new JobEvents(tables);
	}

	/** The statement of the job timeline. */
	protected final JobEvents events() {
		return this.events;
	}

	/**
	 * Runs the insert of one job with its dedup key ({@link #insertJob}, bound but for
	 * the key).
	 * @return the job's id, or {@code null} when an unfinished job holds its dedup key
	 * and nothing was inserted
	 */
	protected abstract Long insertRow(SqlStatement insert, NewJob job) throws SQLException;

	@Override
	protected final List<Long> insertEach(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		return insertRows(connection, jobs, now, this.insertJob, this::insertRow);
	}

	/**
	 * Inserts {@code jobs} a row at a time with {@code statement}, and their
	 * {@code ENQUEUED} events.
	 * @param row runs the insert of one job, bound but for what only that statement takes
	 * @return a mutable list of the ids in request order, {@code null} where the row says
	 * the job's dedup key was taken
	 */
	protected final List<Long> insertRows(Connection connection, List<NewJob> jobs, Instant now, Sql statement,
			RowInsert row) throws SQLException {
		List<Long> ids = new ArrayList<>(jobs.size());
		try (SqlStatement insert = statement.prepare(connection);
				SqlStatement event = this.events.prepare(connection)) {
			for (NewJob job : jobs) {
				Long id = row.insert(bindJob(insert, job, now), job);
				if (id != null) {
					JobEvents.add(event, id, now, "ENQUEUED", null, null);
				}
				ids.add(id);
			}
			event.executeBatch();
		}
		return ids;
	}

	/** Runs a store's insert of one job (see {@link #insertRows}). */
	@FunctionalInterface
	protected interface RowInsert {

		/**
		 * @return the job's id, or {@code null} when its dedup key was taken and nothing
		 * was inserted
		 */
		Long insert(SqlStatement insert, NewJob job) throws SQLException;

	}

}
