package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.store.LinkedJobs;
import dev.jobqueue.core.store.NewJob;

/**
 * Linked jobs inserted a row at a time, for a database without arrays to insert a batch
 * of them in one statement (SQLite, MySQL): each row's id comes back before the next row
 * goes in, so a later job of the call may wait for it, and the first step of a new chain
 * names the chain after itself. The jobs waited for are read first, with a shared lock
 * where the database locks rows ({@code {for_share}}), so none finishes unseen while the
 * waiting job goes in. A store writes how one row's id comes back and the settle.
 */
public abstract class RowLinks extends JdbcLinks {

	/** One linked job; a store adds what makes it return its id. */
	public static final String INSERT_LINKED = """
			INSERT INTO {jobs} (type, status, priority, payload, max_attempts, run_at, created_at, trace_parent,
			    chain_id, chain_index, waiting_for, dependency_policy, finished_at, error_code, error_detail, job_key)
			VALUES (:type, :status, :priority, :payload, :max_attempts, :run_at, :now, :trace_parent,
			    :chain_id, :chain_index, :waiting_for, :dependency_policy, :finished_at, :error_code, :error_detail,
			    :job_key)
			""";

	private static final String LOCK_EXISTING = """
			SELECT id, status FROM {jobs} WHERE id {in_ids :ids} ORDER BY id {for_share}
			""";

	private static final String START_CHAIN = """
			UPDATE {jobs} SET chain_id = id WHERE id = :job_id
			""";

	private static final String INSERT_DEPENDENCY = """
			INSERT INTO {dependencies} (depends_on, job_id, settled) VALUES (:depends_on, :job_id, :settled)
			""";

	private final Tables tables;

	private final Sql lockExisting;

	private final Sql insertLinked;

	private final Sql startChain;

	private final Sql insertDependency;

	/**
	 * @param insertLinked {@link #INSERT_LINKED} as the store runs it with
	 * {@link #insertRow}
	 */
	protected RowLinks(Tables tables, JobEvents events, String insertLinked) {
		super(tables, events);
		this.tables = tables;
		this.lockExisting = tables.sql(LOCK_EXISTING);
		this.insertLinked = tables.sql(insertLinked);
		this.startChain = tables.sql(START_CHAIN);
		this.insertDependency = tables
			.sql(tables.dialect().insertUnlessPresent(INSERT_DEPENDENCY, "depends_on, job_id"));
	}

	/** Runs the bound insert of one linked job and returns its id. */
	protected abstract long insertRow(SqlStatement insert) throws SQLException;

	@Override
	protected final List<Long> insert(Connection connection, List<NewJob> jobs, Instant now, Long chainId,
			int chainBase, FinishedCounts.Changes changes) throws SQLException {
		LinkedJobs.refuseDedupKeys(jobs);
		Map<Long, String> existing = lockExisting(connection, jobs);
		List<Long> ids = new ArrayList<>(jobs.size());
		List<String> statuses = new ArrayList<>(jobs.size());
		Long chain = chainId;
		try (SqlStatement insert = this.insertLinked.prepare(connection);
				SqlStatement dependency = this.insertDependency.prepare(connection);
				SqlStatement event = events().prepare(connection)) {
			for (NewJob job : jobs) {
				Map<Long, String> dependencyStatus = new LinkedHashMap<>();
				for (long id : job.after()) {
					dependencyStatus.put(id, existing.get(id));
				}
				for (int position : job.afterInBatch()) {
					dependencyStatus.putIfAbsent(ids.get(position), statuses.get(position));
				}
				LinkedJobs.Start outcome = LinkedJobs.start(job.dependencyPolicy(), dependencyStatus.values());
				insert.bind("type", job.type())
					.bind("status", outcome.status())
					.bind("priority", job.priority())
					.bind("payload", job.payload())
					.bind("max_attempts", job.maxAttempts())
					.bind("run_at", job.runAt())
					.bind("now", now)
					.bind("trace_parent", job.traceContext())
					.bind("chain_id", (job.chainIndex() != null) ? chain : null)
					.bind("chain_index",
							(job.chainIndex() != null) ? Integer.valueOf(chainBase + job.chainIndex()) : null)
					.bind("waiting_for", outcome.waitingFor())
					.bind("dependency_policy", dependencyStatus.isEmpty() ? null : job.dependencyPolicy().dbValue())
					.bind("finished_at", outcome.finished() ? now : null)
					.bind("error_code", outcome.errorCode())
					.bind("error_detail", outcome.errorDetail())
					.bind("job_key", job.key());
				long id = insertRow(insert);
				if (job.chainIndex() != null && chain == null) {
					chain = id;
					try (SqlStatement start = this.startChain.prepare(connection)) {
						start.bind("job_id", id).executeUpdate();
					}
				}
				for (Map.Entry<Long, String> waited : dependencyStatus.entrySet()) {
					// A dependency finished already is counted now, by the outcome above.
					dependency.bind("depends_on", waited.getKey())
						.bind("job_id", id)
						.bind("settled", LinkedJobs.finished(waited.getValue()))
						.addBatch();
				}
				ids.add(id);
				statuses.add(outcome.status());
				JobEvents.add(event, id, now, "ENQUEUED", null,
						dependencyStatus.isEmpty() ? null : "waits for " + dependencyStatus.size() + " job(s)");
				if (outcome.finished()) {
					changes.finished(job.type(), outcome.status());
					JobEvents.add(event, id, now, "DEPENDENCY_FAILED", null, outcome.errorDetail());
					JobEvents.add(event, id, now, "failed".equals(outcome.status()) ? "FAILED" : "CANCELLED", null,
							outcome.errorCode());
				}
			}
			dependency.executeBatch();
			event.executeBatch();
		}
		return ids;
	}

	private Map<Long, String> lockExisting(Connection connection, List<NewJob> jobs) throws SQLException {
		Set<Long> wanted = new TreeSet<>();
		jobs.forEach((job) -> wanted.addAll(job.after()));
		Map<Long, String> found = new HashMap<>();
		if (wanted.isEmpty()) {
			return found;
		}
		try (SqlStatement select = this.lockExisting.prepare(connection);
				ResultSet rows = select.bindIds("ids", wanted).executeQuery()) {
			while (rows.next()) {
				found.put(rows.getLong(1), rows.getString(2));
			}
		}
		wanted.removeAll(found.keySet());
		if (!wanted.isEmpty()) {
			throw new JobQueueException("Cannot wait for job(s) " + wanted + ": no such job in this queue (table "
					+ this.tables.jobs() + "). Pass ids that enqueue returned for this queue (a job of another table "
					+ "prefix or database is not one of its jobs, and a deleted job is gone); nothing was enqueued.");
		}
		return found;
	}

}
