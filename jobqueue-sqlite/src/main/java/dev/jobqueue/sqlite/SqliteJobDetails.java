package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.JobProgress;
import dev.jobqueue.core.store.QueueInsights.Attempt;
import dev.jobqueue.core.store.QueueInsights.Event;
import dev.jobqueue.core.store.QueueInsights.JobDetail;
import dev.jobqueue.core.store.QueueInsights.JobLinks;
import dev.jobqueue.core.store.QueueInsights.JobPage;
import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.core.store.QueueInsights.JobSummary;
import dev.jobqueue.core.store.QueueInsights.Text;
import dev.jobqueue.core.store.TraceHeaders;
import dev.jobqueue.jdbc.Columns;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The job lists and single-job views of {@link SqliteQueueInsights}: a page of jobs
 * filtered by status, type or error code, newest first, each filter read through the
 * index that keeps its rows in id order; and one job with its attempts and latest events.
 * Also maps the summary columns that the snapshot's job lists share.
 */
final class SqliteJobDetails {

	static final String SUMMARY_COLUMNS = """
			id, type, status, priority, attempts, max_attempts, created_at, run_at, started_at, finished_at,
			worker_id, heartbeat_at, error_code""";

	private static final String JOB = """
			SELECT %s, lease_until, error_detail, dedup_key, cancel_requested, trace_parent,
			       length(payload), substr(payload, 1, :preview), length(result), substr(result, 1, :preview),
			       progress_done, progress_total, progress_message, progress_at,
			       chain_id, chain_index, waiting_for, dependency_policy
			FROM {jobs} WHERE id = :job_id
			""".formatted(SUMMARY_COLUMNS);

	private static final String CHAIN_STEPS = """
			SELECT %s FROM {jobs} WHERE chain_id = :chain_id ORDER BY chain_index, id LIMIT :limit
			""".formatted(SUMMARY_COLUMNS);

	private static final String CHAIN_LENGTH = """
			SELECT count(*) FROM {jobs} WHERE chain_id = :chain_id
			""";

	private static final String WAITS_FOR = """
			SELECT %s FROM {jobs} WHERE id IN (
			    SELECT depends_on FROM {dependencies} WHERE job_id = :job_id ORDER BY depends_on LIMIT :limit)
			ORDER BY id
			""".formatted(SUMMARY_COLUMNS);

	private static final String WAITS_FOR_COUNT = """
			SELECT count(*) FROM {dependencies} WHERE job_id = :job_id
			""";

	private static final String WAITED_BY = """
			SELECT %s FROM {jobs} WHERE id IN (
			    SELECT job_id FROM {dependencies} WHERE depends_on = :job_id ORDER BY job_id LIMIT :limit)
			ORDER BY id
			""".formatted(SUMMARY_COLUMNS);

	private static final String WAITED_BY_COUNT = """
			SELECT count(*) FROM {dependencies} WHERE depends_on = :job_id
			""";

	private static final String PROGRESS = """
			SELECT progress_done, progress_total, progress_message, progress_at FROM {jobs}
			WHERE id = :job_id AND progress_at IS NOT NULL
			""";

	private static final String ATTEMPTS = """
			SELECT run, attempt, worker_id, started_at, finished_at, outcome, error_code, error_detail, error_trace
			FROM {attempts} WHERE job_id = :job_id ORDER BY run
			""";

	private static final String EVENTS = """
			SELECT at, event, actor, detail FROM (
			    SELECT id, at, event, actor, detail FROM {events} WHERE job_id = :job_id ORDER BY id DESC LIMIT :limit)
			ORDER BY id
			""";

	private final Tables tables;

	private final Sql job;

	private final Sql attempts;

	private final Sql events;

	private final Sql progress;

	private final Sql chainSteps;

	private final Sql chainLength;

	private final Sql waitsFor;

	private final Sql waitsForCount;

	private final Sql waitedBy;

	private final Sql waitedByCount;

	/** Job list statements by the filters they have (see {@link #listStatement}). */
	private final Map<Integer, Sql> lists = new ConcurrentHashMap<>();

	SqliteJobDetails(Tables tables) {
		this.tables = tables;
		this.job = tables.sql(JOB);
		this.attempts = tables.sql(ATTEMPTS);
		this.events = tables.sql(EVENTS);
		this.progress = tables.sql(PROGRESS);
		this.chainSteps = tables.sql(CHAIN_STEPS);
		this.chainLength = tables.sql(CHAIN_LENGTH);
		this.waitsFor = tables.sql(WAITS_FOR);
		this.waitsForCount = tables.sql(WAITS_FOR_COUNT);
		this.waitedBy = tables.sql(WAITED_BY);
		this.waitedByCount = tables.sql(WAITED_BY_COUNT);
	}

	Optional<JobDetail> job(Connection connection, long id, int payloadPreviewChars) throws SQLException {
		int preview = Math.max(0, payloadPreviewChars);
		try (SqlStatement select = this.job.prepare(connection)) {
			select.bind("preview", Math.max(1, preview)).bind("job_id", id);
			try (ResultSet rows = select.executeQuery()) {
				if (!rows.next()) {
					return Optional.empty();
				}
				JobSummary job = summary(rows);
				Text payload = text(rows, 19, preview);
				Text result = (rows.getObject(21) != null) ? text(rows, 21, preview) : null;
				Long chainId = Columns.nullableLong(rows, "chain_id");
				Integer chainIndex = Columns.nullableInt(rows, "chain_index");
				int waitingFor = rows.getInt("waiting_for");
				String policy = rows.getString("dependency_policy");
				return Optional
					.of(new JobDetail(job, SqliteDialect.INSTANCE.instant(rows, "lease_until"), rows.getString(15),
							rows.getString(16), rows.getInt(17) == 1, TraceHeaders.traceParent(rows.getString(18)),
							payload, result, attempts(connection, id), events(connection, id), progress(rows, 23),
							links(connection, id, chainId, chainIndex, waitingFor, policy)));
			}
		}
	}

	/**
	 * The job's chain and dependencies: a few indexed reads, each list capped at
	 * {@link JobLinks#MAX_LISTED}.
	 */
	private JobLinks links(Connection connection, long id, Long chainId, Integer chainIndex, int waitingFor,
			String policy) throws SQLException {
		List<JobSummary> steps = List.of();
		long length = 0;
		if (chainId != null) {
			try (SqlStatement select = this.chainSteps.prepare(connection)) {
				steps = summaries(select.bind("chain_id", chainId).bind("limit", JobLinks.MAX_LISTED));
			}
			try (SqlStatement count = this.chainLength.prepare(connection)) {
				length = count.bind("chain_id", chainId).queryLong();
			}
		}
		long waitsForTotal;
		try (SqlStatement count = this.waitsForCount.prepare(connection)) {
			waitsForTotal = count.bind("job_id", id).queryLong();
		}
		List<JobSummary> waits = List.of();
		if (waitsForTotal > 0) {
			try (SqlStatement select = this.waitsFor.prepare(connection)) {
				waits = summaries(select.bind("job_id", id).bind("limit", JobLinks.MAX_LISTED));
			}
		}
		long waitedByTotal;
		try (SqlStatement count = this.waitedByCount.prepare(connection)) {
			waitedByTotal = count.bind("job_id", id).queryLong();
		}
		List<JobSummary> waiting = List.of();
		if (waitedByTotal > 0) {
			try (SqlStatement select = this.waitedBy.prepare(connection)) {
				waiting = summaries(select.bind("job_id", id).bind("limit", JobLinks.MAX_LISTED));
			}
		}
		if (chainId == null && waitsForTotal == 0 && waitedByTotal == 0) {
			return JobLinks.NONE;
		}
		return new JobLinks(chainId, chainIndex, steps, length, waitingFor,
				(policy != null) ? DependencyPolicy.fromDbValue(policy) : null, waits, waitsForTotal, waiting,
				waitedByTotal);
	}

	Map<Long, JobProgress> progress(Connection connection, Collection<Long> ids) throws SQLException {
		Map<Long, JobProgress> found = new HashMap<>();
		try (SqlStatement select = this.progress.prepare(connection)) {
			for (long id : ids) {
				try (ResultSet rows = select.bind("job_id", id).executeQuery()) {
					if (rows.next()) {
						found.put(id, progress(rows, 1));
					}
				}
			}
		}
		return found;
	}

	private static JobProgress progress(ResultSet rows, int firstColumn) throws SQLException {
		if (rows.getObject(firstColumn + 3) == null) {
			return null;
		}
		return new JobProgress(rows.getLong(firstColumn), rows.getLong(firstColumn + 1),
				rows.getString(firstColumn + 2), Instant.ofEpochMilli(rows.getLong(firstColumn + 3)));
	}

	/** One more job than the page holds is read, to tell whether there is a next page. */
	JobPage jobs(Connection connection, JobQuery query) throws SQLException {
		List<JobSummary> jobs;
		try (SqlStatement select = listStatement(query).prepare(connection)) {
			jobs = summaries(bindList(select, query));
		}
		if (jobs.size() <= query.limit()) {
			return new JobPage(jobs, null);
		}
		List<JobSummary> page = jobs.subList(0, query.limit());
		return new JobPage(List.copyOf(page), page.get(page.size() - 1).id());
	}

	/** The query plan of a job list, for tests. */
	List<String> explain(Connection connection, JobQuery query) throws SQLException {
		Sql explain = this.tables.sql("EXPLAIN QUERY PLAN " + listTemplate(query));
		List<String> lines = new ArrayList<>();
		try (SqlStatement select = explain.prepare(connection)) {
			try (ResultSet rows = bindList(select, query).executeQuery()) {
				while (rows.next()) {
					lines.add(rows.getString("detail"));
				}
			}
		}
		return lines;
	}

	private Sql listStatement(JobQuery query) {
		int filters = ((query.status() != null) ? 1 : 0) | ((query.type() != null) ? 2 : 0)
				| ((query.errorCode() != null) ? 4 : 0) | ((query.before() != null) ? 8 : 0);
		return this.lists.computeIfAbsent(filters, (key) -> this.tables.sql(listTemplate(query)));
	}

	private static String listTemplate(JobQuery query) {
		List<String> conditions = new ArrayList<>();
		String index = null;
		if (query.status() != null) {
			conditions.add("status = :status");
			// Both indexes keep the rows of one key in id order, so newest first needs no
			// sort.
			index = (query.type() != null) ? "jobs_status_type_idx" : "jobs_status_idx";
		}
		if (query.type() != null) {
			conditions.add("type = :type");
		}
		if (query.errorCode() != null) {
			conditions.add("error_code = :error_code");
			index = (index != null) ? index : "jobs_error_code_idx";
		}
		if (query.before() != null) {
			conditions.add("id < :before");
		}
		// Without a status or error code, the primary key read backwards finds the newest
		// matches first.
		return "SELECT " + SUMMARY_COLUMNS + " FROM {jobs}" + ((index != null) ? " INDEXED BY {p}" + index : "")
				+ (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions))
				+ " ORDER BY id DESC LIMIT :limit";
	}

	private static SqlStatement bindList(SqlStatement select, JobQuery query) throws SQLException {
		if (query.status() != null) {
			select.bind("status", query.status().dbValue());
		}
		if (query.type() != null) {
			select.bind("type", query.type());
		}
		if (query.errorCode() != null) {
			select.bind("error_code", query.errorCode());
		}
		if (query.before() != null) {
			select.bind("before", query.before());
		}
		return select.bind("limit", query.limit() + 1);
	}

	private List<Attempt> attempts(Connection connection, long id) throws SQLException {
		List<Attempt> attempts = new ArrayList<>();
		try (SqlStatement select = this.attempts.prepare(connection);
				ResultSet rows = select.bind("job_id", id).executeQuery()) {
			while (rows.next()) {
				attempts.add(new Attempt(rows.getInt(1), rows.getInt(2), rows.getString(3),
						SqliteDialect.INSTANCE.instant(rows, "started_at"),
						SqliteDialect.INSTANCE.instant(rows, "finished_at"), rows.getString(6), rows.getString(7),
						rows.getString(8), rows.getString(9)));
			}
		}
		return attempts;
	}

	private List<Event> events(Connection connection, long id) throws SQLException {
		List<Event> events = new ArrayList<>();
		try (SqlStatement select = this.events.prepare(connection);
				ResultSet rows = select.bind("job_id", id).bind("limit", JobDetail.MAX_EVENTS).executeQuery()) {
			while (rows.next()) {
				events.add(new Event(Instant.ofEpochMilli(rows.getLong(1)), rows.getString(2), rows.getString(3),
						rows.getString(4)));
			}
		}
		return events;
	}

	private static Text text(ResultSet rows, int lengthColumn, int preview) throws SQLException {
		long length = rows.getLong(lengthColumn);
		if (preview == 0) {
			return new Text(length, null, length > 0);
		}
		String start = rows.getString(lengthColumn + 1);
		return new Text(length, start, start != null && start.length() < length);
	}

	/** Runs a query of {@link #SUMMARY_COLUMNS}. */
	static List<JobSummary> summaries(SqlStatement select) throws SQLException {
		List<JobSummary> summaries = new ArrayList<>();
		try (ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				summaries.add(summary(rows));
			}
		}
		return summaries;
	}

	private static JobSummary summary(ResultSet rows) throws SQLException {
		return new JobSummary(rows.getLong("id"), rows.getString("type"),
				JobStatus.fromDbValue(rows.getString("status")), rows.getInt("priority"), rows.getInt("attempts"),
				rows.getInt("max_attempts"), SqliteDialect.INSTANCE.instant(rows, "created_at"),
				SqliteDialect.INSTANCE.instant(rows, "run_at"), SqliteDialect.INSTANCE.instant(rows, "started_at"),
				SqliteDialect.INSTANCE.instant(rows, "finished_at"), rows.getString("worker_id"),
				SqliteDialect.INSTANCE.instant(rows, "heartbeat_at"), rows.getString("error_code"));
	}

}
