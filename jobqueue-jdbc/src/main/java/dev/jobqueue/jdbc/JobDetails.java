package dev.jobqueue.jdbc;

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

/**
 * The job lists and single-job views of {@link JdbcQueueInsights}: a page of jobs
 * filtered by status, type or error code, newest first; one job with its attempts, latest
 * events, progress and links; the latest progress of running jobs.
 */
final class JobDetails {

	private final Tables tables;

	private final Dialect dialect;

	private final InsightStatements statements;

	private final JdbcSteps steps;

	/** Job list statements by the filters they have (see {@link #listStatement}). */
	private final Map<Integer, Sql> lists = new ConcurrentHashMap<>();

	JobDetails(Tables tables, InsightStatements statements) {
		this.tables = tables;
		this.dialect = tables.dialect();
		this.statements = statements;
		this.steps = new JdbcSteps(tables);
	}

	Optional<JobDetail> job(Connection connection, long id, int payloadPreviewChars) throws SQLException {
		int preview = Math.max(0, payloadPreviewChars);
		try (SqlStatement select = sql(this.statements.job).prepare(connection)) {
			select.bind("preview", Math.max(1, preview)).bind("job_id", id);
			try (ResultSet rows = select.executeQuery()) {
				if (!rows.next()) {
					return Optional.empty();
				}
				JobSummary job = JobColumns.summary(rows, this.dialect);
				// After the summary: lease_until, error_detail, dedup_key,
				// cancel_requested,
				// trace_parent, then the payload's and result's lengths and previews.
				int after = JobColumns.SUMMARY_COLUMNS;
				Text payload = text(rows, after + 6, preview);
				Text result = (rows.getObject(after + 8) != null) ? text(rows, after + 8, preview) : null;
				Long chainId = Columns.nullableLong(rows, "chain_id");
				Integer chainIndex = Columns.nullableInt(rows, "chain_index");
				int waitingFor = rows.getInt("waiting_for");
				String policy = rows.getString("dependency_policy");
				return Optional.of(new JobDetail(job, this.dialect.instant(rows, "lease_until"),
						rows.getString(after + 2), rows.getString(after + 3), rows.getBoolean(after + 4),
						TraceHeaders.traceParent(rows.getString(after + 5)), payload, result, attempts(connection, id),
						events(connection, id), progress(rows, after + 10),
						links(connection, id, chainId, chainIndex, waitingFor, policy),
						this.steps.shortened(connection, id, preview)));
			}
		}
	}

	/**
	 * The job's chain and dependencies: a few indexed reads, each list capped at
	 * {@link JobLinks#MAX_LISTED}, the counts exact.
	 */
	private JobLinks links(Connection connection, long id, Long chainId, Integer chainIndex, int waitingFor,
			String policy) throws SQLException {
		int limit = JobLinks.MAX_LISTED;
		List<JobSummary> steps = List.of();
		long length = 0;
		if (chainId != null) {
			steps = summaries(connection, this.statements.chainSteps, "chain_id", chainId, limit);
			length = count(connection, this.statements.chainLength, "chain_id", chainId);
		}
		long waitsForCount = count(connection, this.statements.waitsForCount, "job_id", id);
		List<JobSummary> waitsFor = (waitsForCount > 0)
				? summaries(connection, this.statements.waitsFor, "job_id", id, limit) : List.of();
		long waitedByCount = count(connection, this.statements.waitedByCount, "job_id", id);
		List<JobSummary> waitedBy = (waitedByCount > 0)
				? summaries(connection, this.statements.waitedBy, "job_id", id, limit) : List.of();
		if (chainId == null && waitsForCount == 0 && waitedByCount == 0 && policy == null) {
			return JobLinks.NONE;
		}
		return new JobLinks(chainId, chainIndex, steps, length, waitingFor,
				(policy != null) ? DependencyPolicy.fromDbValue(policy) : null, waitsFor, waitsForCount, waitedBy,
				waitedByCount);
	}

	private List<JobSummary> summaries(Connection connection, String template, String key, long value, int limit)
			throws SQLException {
		try (SqlStatement select = sql(template).prepare(connection)) {
			return JobColumns.summaries(select.bind(key, value).bind("limit", limit), this.dialect);
		}
	}

	private long count(Connection connection, String template, String key, long value) throws SQLException {
		try (SqlStatement count = sql(template).prepare(connection)) {
			return count.bind(key, value).queryLong();
		}
	}

	Map<Long, JobProgress> progress(Connection connection, Collection<Long> ids) throws SQLException {
		Map<Long, JobProgress> found = new HashMap<>();
		try (SqlStatement select = sql(this.statements.progress).prepare(connection)) {
			try (ResultSet rows = select.bindIds("ids", ids).executeQuery()) {
				while (rows.next()) {
					found.put(rows.getLong(1), progress(rows, 2));
				}
			}
		}
		return found;
	}

	/** The four progress columns from {@code firstColumn} on, or {@code null}. */
	private JobProgress progress(ResultSet rows, int firstColumn) throws SQLException {
		Instant at = this.dialect.instant(rows, firstColumn + 3);
		if (at == null) {
			return null;
		}
		return new JobProgress(rows.getLong(firstColumn), rows.getLong(firstColumn + 1),
				rows.getString(firstColumn + 2), at);
	}

	/** One more job than the page holds is read, to tell whether there is a next page. */
	JobPage jobs(Connection connection, JobQuery query) throws SQLException {
		List<JobSummary> jobs;
		try (SqlStatement select = listStatement(query).prepare(connection)) {
			jobs = JobColumns.summaries(InsightStatements.bindJobs(select, query), this.dialect);
		}
		if (jobs.size() <= query.limit()) {
			return new JobPage(jobs, null);
		}
		List<JobSummary> page = jobs.subList(0, query.limit());
		return new JobPage(List.copyOf(page), page.get(page.size() - 1).id());
	}

	private Sql listStatement(JobQuery query) {
		// The status is a part of the statement's text (see InsightStatements#jobs).
		int filters = ((query.status() != null) ? (query.status().ordinal() + 1) << 4 : 0)
				| ((query.type() != null) ? 1 : 0) | ((query.errorCode() != null) ? 2 : 0)
				| ((query.before() != null) ? 4 : 0) | ((query.key() != null) ? 8 : 0);
		return this.lists.computeIfAbsent(filters, (key) -> sql(this.statements.jobs(query)));
	}

	private List<Attempt> attempts(Connection connection, long id) throws SQLException {
		List<Attempt> attempts = new ArrayList<>();
		try (SqlStatement select = sql(this.statements.attempts).prepare(connection);
				ResultSet rows = select.bind("job_id", id).executeQuery()) {
			while (rows.next()) {
				attempts.add(new Attempt(rows.getInt(1), rows.getInt(2), rows.getString(3),
						this.dialect.instant(rows, "started_at"), this.dialect.instant(rows, "finished_at"),
						rows.getString(6), rows.getString(7), rows.getString(8), rows.getString(9)));
			}
		}
		return attempts;
	}

	private List<Event> events(Connection connection, long id) throws SQLException {
		List<Event> events = new ArrayList<>();
		try (SqlStatement select = sql(this.statements.events).prepare(connection);
				ResultSet rows = select.bind("job_id", id).bind("limit", JobDetail.MAX_EVENTS).executeQuery()) {
			while (rows.next()) {
				events.add(new Event(this.dialect.instant(rows, 1), rows.getString(2), rows.getString(3),
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

	private Sql sql(String template) {
		return this.tables.sql(template);
	}

}
