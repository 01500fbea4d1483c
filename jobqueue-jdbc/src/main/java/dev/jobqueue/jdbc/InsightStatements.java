package dev.jobqueue.jdbc;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.QueueInsights.JobQuery;

/**
 * The statements of {@link JdbcQueueInsights}, written once with the dialect's few
 * differences: an index named where the database must be told which one to read
 * ({@link Dialect#indexedBy}), how a worker's list of types is searched. Public so that
 * each store's tests can check the plan of every statement on its own database.
 */
public final class InsightStatements {

	/**
	 * The statuses that have few rows among many and a partial index of their own:
	 * {@code jobs_<status>_idx} on SQLite, one index of the three on PostgreSQL (which
	 * finds it without being told).
	 */
	private static final Set<JobStatus> INDEXED_APART = EnumSet.of(JobStatus.FAILED, JobStatus.CANCELLED,
			JobStatus.WAITING);

	/**
	 * Unfinished jobs per type and status, each status read from the index it already
	 * has: the claim index for pending jobs without a key and the index of keyed jobs for
	 * those with one (two rows of a type, to be added up), the running index, the partial
	 * index of waiting jobs. No index holds every job's status, which would take an entry
	 * at each status change of each job. Finished jobs, most of the table, are counted as
	 * they finish ({@link FinishedCounts}).
	 */
	public final String counts;

	/**
	 * Due pending jobs a worker would claim now: a paused type, or one no live worker
	 * handles, is held, not late.
	 */
	public final String claimableCount;

	public final String oldestClaimable;

	public final String oldestRunning;

	public final String stuckCount;

	public final String stuck;

	/**
	 * Attempts used by failed jobs, retried pending jobs and running jobs, per type and
	 * status; pending jobs that never ran are the pending count less the retried ones.
	 * The first WHERE clause matches jobs_retries_idx's exactly, as SQLite needs to use
	 * it.
	 */
	public final String retries;

	public final String errors;

	public final String workers;

	/** The latest progress of the given jobs, by primary key. */
	public final String progress;

	public final String job;

	/** A chain's first steps, from jobs_chain_idx. */
	public final String chainSteps;

	public final String chainLength;

	/** What a job waits for, from job_dependencies_job_idx. */
	public final String waitsFor;

	public final String waitsForCount;

	/** What waits for a job, from the dependency table's primary key. */
	public final String waitedBy;

	public final String waitedByCount;

	public final String attempts;

	/** The latest events of a job, oldest first. */
	public final String events;

	/** Any healthy database answers at once: a read waits for no writer. */
	public final String readProbe = "SELECT count(*) FROM {jobs} WHERE id = -1";

	private final Dialect dialect;

	public InsightStatements(Dialect dialect) {
		this.dialect = dialect;
		String summary = JobColumns.SUMMARY;
		String running = dialect.indexedBy("jobs_running_idx");
		String claimable = """
				status = 'pending' AND run_at <= :now AND type NOT IN (SELECT type FROM {paused})
				AND EXISTS (SELECT 1 FROM {workers} w WHERE w.heartbeat_at >= :alive_after AND %s)"""
			.formatted(dialect.textListContains("w.types", "{jobs}.type"));
		this.counts = """
				SELECT type, 'pending', count(*) FROM {jobs} %s WHERE status = 'pending' AND job_key IS NULL GROUP BY type
				UNION ALL
				SELECT type, 'pending', count(*) FROM {jobs} %s
				WHERE job_key IS NOT NULL AND status IN ('pending', 'running', 'failed') AND status = 'pending'
				GROUP BY type
				UNION ALL
				SELECT type, 'running', count(*) FROM {jobs} %s WHERE status = 'running' GROUP BY type
				UNION ALL
				SELECT type, 'waiting', count(*) FROM {jobs} %s WHERE status = 'waiting' GROUP BY type
				"""
			.formatted(dialect.indexedBy("jobs_claim_type_idx"), dialect.indexedBy("jobs_keyed_idx"), running,
					dialect.indexedBy(statusIndex(JobStatus.WAITING)));
		this.claimableCount = "SELECT count(*) FROM {jobs} WHERE " + claimable;
		// By due time alone: the index of due jobs orders by run_at only, and a tie
		// broken by
		// id made PostgreSQL read and sort every job of the oldest due time (50-95 ms for
		// 100,000 jobs enqueued together) before it could answer.
		this.oldestClaimable = "SELECT %s FROM {jobs} WHERE %s ORDER BY run_at LIMIT 1".formatted(summary, claimable);
		this.oldestRunning = "SELECT %s FROM {jobs} %s WHERE status = 'running' ORDER BY started_at, id LIMIT :limit"
			.formatted(summary, running);
		this.stuckCount = """
				SELECT count(*) FROM {jobs} %s WHERE status = 'running' AND heartbeat_at < :heartbeat_before
				""".formatted(running);
		this.stuck = """
				SELECT %s FROM {jobs} %s WHERE status = 'running' AND heartbeat_at < :heartbeat_before
				ORDER BY heartbeat_at, id LIMIT :limit
				""".formatted(summary, running);
		this.retries = """
				SELECT type, status, attempts, count(*) FROM {jobs} %s
				WHERE status = 'failed' OR status = 'pending' AND attempts > 0
				GROUP BY type, status, attempts
				UNION ALL
				SELECT type, status, attempts, count(*) FROM {jobs} %s
				WHERE status = 'running'
				GROUP BY type, status, attempts
				""".formatted(dialect.indexedBy("jobs_retries_idx"), running);
		this.errors = """
				SELECT error_code, type, status, count(*) FROM {jobs} %s
				WHERE error_code IS NOT NULL AND status IN ('pending', 'running', 'failed')
				GROUP BY error_code, type, status
				""".formatted(dialect.indexedBy("jobs_error_code_idx"));
		this.workers = "SELECT worker_id, host, pid, types, concurrency, started_at, heartbeat_at FROM {workers}";
		this.progress = """
				SELECT id, progress_done, progress_total, progress_message, progress_at FROM {jobs}
				WHERE id {in_ids :ids} AND progress_at IS NOT NULL
				""";
		this.job = """
				SELECT %s, lease_until, error_detail, dedup_key, cancel_requested, trace_parent,
				       length(payload), substr(payload, 1, :preview), length(result), substr(result, 1, :preview),
				       progress_done, progress_total, progress_message, progress_at,
				       chain_id, chain_index, waiting_for, dependency_policy
				FROM {jobs} WHERE id = :job_id
				""".formatted(summary);
		this.chainSteps = "SELECT %s FROM {jobs} WHERE chain_id = :chain_id ORDER BY chain_index, id LIMIT :limit"
			.formatted(summary);
		this.chainLength = "SELECT count(*) FROM {jobs} WHERE chain_id = :chain_id";
		// Joins, not IN (... LIMIT), which MySQL and MariaDB refuse.
		this.waitsFor = """
				SELECT %s FROM {jobs} JOIN (
				    SELECT depends_on FROM {dependencies} WHERE job_id = :job_id ORDER BY depends_on LIMIT :limit
				) waited ON waited.depends_on = {jobs}.id
				ORDER BY id
				""".formatted(summary);
		this.waitsForCount = "SELECT count(*) FROM {dependencies} WHERE job_id = :job_id";
		this.waitedBy = """
				SELECT %s FROM {jobs} JOIN (
				    SELECT job_id FROM {dependencies} WHERE depends_on = :job_id ORDER BY job_id LIMIT :limit
				) waiting ON waiting.job_id = {jobs}.id
				ORDER BY id
				""".formatted(summary);
		this.waitedByCount = "SELECT count(*) FROM {dependencies} WHERE depends_on = :job_id";
		this.attempts = """
				SELECT run, attempt, worker_id, started_at, finished_at, outcome, error_code, error_detail, error_trace
				FROM {attempts} WHERE job_id = :job_id ORDER BY run
				""";
		this.events = """
				SELECT at, event, actor, detail FROM (
				    SELECT id, at, event, actor, detail FROM {events} WHERE job_id = :job_id ORDER BY id DESC LIMIT :limit
				) latest
				ORDER BY id
				""";
	}

	/**
	 * The statements of a snapshot but the worker table's (read whole), by name, for
	 * tests that each reads an index.
	 */
	public Map<String, String> snapshot() {
		Map<String, String> statements = new LinkedHashMap<>();
		statements.put("COUNTS", this.counts);
		statements.put("FINISHED_COUNTS", FinishedCounts.SUM);
		statements.put("CLAIMABLE_COUNT", this.claimableCount);
		statements.put("OLDEST_CLAIMABLE", this.oldestClaimable);
		statements.put("OLDEST_RUNNING", this.oldestRunning);
		statements.put("STUCK_COUNT", this.stuckCount);
		statements.put("STUCK", this.stuck);
		statements.put("RETRIES", this.retries);
		statements.put("ERRORS", this.errors);
		return statements;
	}

	/**
	 * A page of jobs matching {@code query}, newest first: a key's jobs, failed,
	 * cancelled or waiting jobs, or jobs of an error code, from the index that keeps each
	 * key's rows in id order (a job's key first: its jobs are few among many, whatever
	 * else the query asks), else the primary key read backwards; one more job than the
	 * page holds. The status is written into the statement, not bound: a partial index
	 * serves only a query that names its status.
	 */
	public String jobs(JobQuery query) {
		List<String> conditions = new ArrayList<>();
		String index = null;
		if (query.status() != null) {
			conditions.add("status = '" + query.status().dbValue() + "'");
			if (INDEXED_APART.contains(query.status())) {
				index = statusIndex(query.status());
			}
		}
		if (query.type() != null) {
			conditions.add("type = :type");
		}
		if (query.errorCode() != null) {
			conditions.add("error_code = :error_code");
			index = (index != null) ? index : "jobs_error_code_idx";
		}
		if (query.key() != null) {
			conditions.add("job_key = :job_key");
			index = "jobs_key_idx";
		}
		if (query.before() != null) {
			conditions.add("id < :before");
		}
		return "SELECT " + JobColumns.SUMMARY + " FROM {jobs}"
				+ ((index != null) ? " " + this.dialect.indexedBy(index) : "")
				+ (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions))
				+ " ORDER BY id DESC LIMIT :limit";
	}

	/** The partial index of a status with few rows among many, as SQLite names it. */
	private static String statusIndex(JobStatus status) {
		return "jobs_" + status.dbValue() + "_idx";
	}

	/** Binds the parameters of a {@link InsightStatements#jobs} statement. */
	public static SqlStatement bindJobs(SqlStatement select, JobQuery query) throws SQLException {
		if (query.type() != null) {
			select.bind("type", query.type());
		}
		if (query.errorCode() != null) {
			select.bind("error_code", query.errorCode());
		}
		if (query.key() != null) {
			select.bind("job_key", query.key());
		}
		if (query.before() != null) {
			select.bind("before", query.before());
		}
		return select.bind("limit", query.limit() + 1);
	}

}
