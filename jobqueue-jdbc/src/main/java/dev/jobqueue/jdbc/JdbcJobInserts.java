package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.jobqueue.core.store.LinkedJobs;
import dev.jobqueue.core.store.NewJob;

/**
 * How jobs go in, the same on every database: jobs that wait or form a chain through the
 * store's {@link Links}; many jobs without dedup keys in one go; otherwise one row at a
 * time, where a job whose dedup key matches an unfinished job yields that job's id. A
 * store writes the two inserts its own way (each with its {@code ENQUEUED} event). A job
 * that goes in finished (it waits for a job that failed, and its policy ends it) is
 * counted among the finished jobs ({@link FinishedCounts}) at the end of the insert, in a
 * shard picked at random: the transaction may be the application's.
 */
public abstract class JdbcJobInserts implements JobInserts {

	private static final String FIND_UNFINISHED_BY_DEDUP_KEY = """
			SELECT id FROM {jobs} WHERE dedup_key = :dedup_key AND status IN ('pending', 'running')
			""";

	/**
	 * One job with its dedup key; a store adds what makes it skip a taken key or return
	 * its id.
	 */
	public static final String INSERT_JOB = """
			INSERT INTO {jobs} (type, status, priority, payload, dedup_key, max_attempts, run_at, created_at, trace_parent,
			    job_key)
			VALUES (:type, 'pending', :priority, :payload, :dedup_key, :max_attempts, :run_at, :now, :trace_parent,
			    :job_key)
			""";

	/** One job without a dedup key. */
	public static final String INSERT_JOB_WITHOUT_DEDUP_KEY = """
			INSERT INTO {jobs} (type, status, priority, payload, max_attempts, run_at, created_at, trace_parent, job_key)
			VALUES (:type, 'pending', :priority, :payload, :max_attempts, :run_at, :now, :trace_parent, :job_key)
			""";

	private final Links links;

	private final FinishedCounts finishedCounts;

	private final Sql findUnfinishedByDedupKey;

	/** The store's insert of one job, dedup key included, that returns its id. */
	protected final Sql insertJob;

	/** The store's insert of jobs without dedup keys, in one go. */
	protected final Sql insertJobsWithoutDedupKeys;

	/**
	 * @param insertJob the store's insert of one job, which returns its id and nothing
	 * when the dedup key conflicts
	 * @param insertJobsWithoutDedupKeys the store's insert of jobs without dedup keys,
	 * for {@link #insertWithoutDedupKeys}
	 */
	protected JdbcJobInserts(Tables tables, Links links, String insertJob, String insertJobsWithoutDedupKeys) {
		this.links = Objects.requireNonNull(links, "'links' must not be null");
		this.finishedCounts = new FinishedCounts(tables);
		this.findUnfinishedByDedupKey = tables.sql(FIND_UNFINISHED_BY_DEDUP_KEY);
		this.insertJob = tables.sql(insertJob);
		this.insertJobsWithoutDedupKeys = tables.sql(insertJobsWithoutDedupKeys);
	}

	/**
	 * Binds the columns every insert of one job has: all but the dedup key, which not
	 * every insert takes.
	 */
	protected static SqlStatement bindJob(SqlStatement insert, NewJob job, Instant now) throws SQLException {
		return insert.bind("type", job.type())
			.bind("priority", job.priority())
			.bind("payload", job.payload())
			.bind("max_attempts", job.maxAttempts())
			.bind("run_at", job.runAt())
			.bind("now", now)
			// The column keeps its first schema's name; it holds the stored propagation
			// headers (TraceHeaders).
			.bind("trace_parent", job.traceContext())
			.bind("job_key", job.key());
	}

	@Override
	public final List<Long> insert(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		if (!LinkedJobs.anyLinked(jobs)) {
			return insertUnlinked(connection, jobs, now);
		}
		FinishedCounts.Changes changes = new FinishedCounts.Changes();
		List<Long> ids;
		if (jobs.size() > 1 && jobs.stream().anyMatch((job) -> job.dedupKey() != null)) {
			// enqueueAll mixing jobs that wait with jobs that have a dedup key (those
			// never wait): each goes in its own way, in order.
			ids = new ArrayList<>(jobs.size());
			for (NewJob job : jobs) {
				ids.addAll(
						LinkedJobs.anyLinked(List.of(job)) ? this.links.insert(connection, List.of(job), now, changes)
								: insertUnlinked(connection, List.of(job), now));
			}
		}
		else {
			ids = this.links.insert(connection, jobs, now, changes);
		}
		this.finishedCounts.add(connection, null, changes);
		return ids;
	}

	/** Inserts jobs that neither wait nor form a chain: none goes in finished. */
	private List<Long> insertUnlinked(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		if (isOneBatch(jobs)) {
			return insertWithoutDedupKeys(connection, jobs, now);
		}
		List<Long> ids = insertEach(connection, jobs, now);
		for (int i = 0; i < ids.size(); i++) {
			if (ids.get(i) == null) {
				ids.set(i, existingByDedupKey(connection, jobs.get(i).dedupKey()));
			}
		}
		return ids;
	}

	/**
	 * Whether {@code jobs} go in as one batch: several jobs that wait for nothing and
	 * have no dedup key.
	 */
	public static boolean isOneBatch(List<NewJob> jobs) {
		return jobs.size() > 1 && !LinkedJobs.anyLinked(jobs)
				&& jobs.stream().allMatch((job) -> job.dedupKey() == null);
	}

	/**
	 * Inserts the jobs one row at a time, each with its {@code ENQUEUED} event.
	 * @return a mutable list of the ids in request order, {@code null} where the job's
	 * dedup key matched an unfinished job and nothing was inserted
	 */
	protected abstract List<Long> insertEach(Connection connection, List<NewJob> jobs, Instant now) throws SQLException;

	/**
	 * Inserts several jobs without dedup keys in one go, each with its {@code ENQUEUED}
	 * event.
	 * @return the ids in request order
	 */
	protected abstract List<Long> insertWithoutDedupKeys(Connection connection, List<NewJob> jobs, Instant now)
			throws SQLException;

	private long existingByDedupKey(Connection connection, String dedupKey) throws SQLException {
		try (SqlStatement select = this.findUnfinishedByDedupKey.prepare(connection)) {
			try (ResultSet rows = select.bind("dedup_key", dedupKey).executeQuery()) {
				if (rows.next()) {
					return rows.getLong(1);
				}
			}
		}
		// Where another transaction may finish the job holding the key between the insert
		// and this read, the caller may enqueue again (a serialization failure is
		// retried).
		throw new SQLException("A job insert was ignored but no unfinished job has its dedup key '" + dedupKey
				+ "' any more (it finished meanwhile); enqueue it again", "40001");
	}

}
