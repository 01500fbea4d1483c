package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.core.store.LinkedJobs;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The two ways jobs go in: one row at a time with {@code RETURNING} when a dedup key may
 * match an unfinished job, or one batch when no job has a key. Used by the job store's
 * enqueue and by the schedule store, which inserts a tick's job in the transaction that
 * advances the schedule.
 */
final class JobInserts {

	private static final String INSERT_JOB = """
			INSERT INTO {jobs} (type, status, priority, payload, dedup_key, max_attempts, run_at, created_at, trace_parent)
			VALUES (:type, 'pending', :priority, :payload, :dedup_key, :max_attempts, :run_at, :now, :trace_parent)
			ON CONFLICT DO NOTHING
			RETURNING id
			""";

	/**
	 * A job without a dedup key: nothing can conflict, and the id comes from
	 * last_insert_rowid().
	 */
	private static final String INSERT_JOB_WITHOUT_DEDUP_KEY = """
			INSERT INTO {jobs} (type, status, priority, payload, max_attempts, run_at, created_at, trace_parent)
			VALUES (:type, 'pending', :priority, :payload, :max_attempts, :run_at, :now, :trace_parent)
			""";

	private static final String FIND_UNFINISHED_BY_DEDUP_KEY = """
			SELECT id FROM {jobs} WHERE dedup_key = :dedup_key AND status IN ('pending', 'running')
			""";

	private final Sql insertJob;

	private final Sql insertJobWithoutDedupKey;

	private final Sql findUnfinishedByDedupKey;

	private final JobEvents events;

	private final SqliteLinks links;

	JobInserts(Tables tables, JobEvents events) {
		this.links = new SqliteLinks(tables, events);
		this.insertJob = tables.sql(INSERT_JOB);
		this.insertJobWithoutDedupKey = tables.sql(INSERT_JOB_WITHOUT_DEDUP_KEY);
		this.findUnfinishedByDedupKey = tables.sql(FIND_UNFINISHED_BY_DEDUP_KEY);
		this.events = events;
	}

	/**
	 * Inserts the jobs in the caller's transaction.
	 * @return the ids in request order; a job whose dedup key matches an unfinished job
	 * yields that job's id
	 */
	List<Long> insert(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		if (LinkedJobs.anyLinked(jobs)) {
			if (jobs.size() > 1 && jobs.stream().anyMatch((job) -> job.dedupKey() != null)) {
				// enqueueAll mixing jobs that wait with jobs that have a dedup key (those
				// never wait): each goes in its own way, in order.
				List<Long> ids = new ArrayList<>(jobs.size());
				for (NewJob job : jobs) {
					ids.addAll(insert(connection, List.of(job), now));
				}
				return ids;
			}
			return this.links.insert(connection, jobs, now);
		}
		if (jobs.size() > 1 && jobs.stream().allMatch((job) -> job.dedupKey() == null)) {
			return insertWithoutDedupKeys(connection, jobs, now);
		}
		List<Long> ids = new ArrayList<>(jobs.size());
		try (SqlStatement insert = this.insertJob.prepare(connection);
				SqlStatement event = this.events.prepare(connection)) {
			for (NewJob job : jobs) {
				bindJob(insert, job, now).bind("dedup_key", job.dedupKey());
				Long id = null;
				try (ResultSet rows = insert.executeQuery()) {
					if (rows.next()) {
						id = rows.getLong(1);
					}
				}
				if (id == null) {
					ids.add(existingByDedupKey(connection, job.dedupKey()));
					continue;
				}
				ids.add(id);
				JobEvents.add(event, id, now, "ENQUEUED", null, null);
			}
			event.executeBatch();
		}
		return ids;
	}

	/**
	 * Many jobs without dedup keys: one JDBC batch without {@code RETURNING}, which costs
	 * about half the insert rate per row on this schema (measured in the benchmark
	 * module). The transaction holds the write lock while the batch runs, so
	 * AUTOINCREMENT gives the batch consecutive ids ending at
	 * {@code last_insert_rowid()}.
	 */
	private List<Long> insertWithoutDedupKeys(Connection connection, List<NewJob> jobs, Instant now)
			throws SQLException {
		try (SqlStatement insert = this.insertJobWithoutDedupKey.prepare(connection);
				SqlStatement event = this.events.prepare(connection);
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

	private static SqlStatement bindJob(SqlStatement insert, NewJob job, Instant now) throws SQLException {
		return insert.bind("type", job.type())
			.bind("priority", job.priority())
			.bind("payload", job.payload())
			.bind("max_attempts", job.maxAttempts())
			.bind("run_at", job.runAt())
			.bind("now", now)
			// The column keeps its first schema's name; it holds the stored propagation
			// headers (TraceHeaders).
			.bind("trace_parent", job.traceContext());
	}

	private long existingByDedupKey(Connection connection, String dedupKey) throws SQLException {
		try (SqlStatement select = this.findUnfinishedByDedupKey.prepare(connection)) {
			try (ResultSet rows = select.bind("dedup_key", dedupKey).executeQuery()) {
				if (rows.next()) {
					return rows.getLong(1);
				}
			}
		}
		throw new SQLException("A job insert was ignored but no unfinished job has its dedup key '" + dedupKey + "'");
	}

}
