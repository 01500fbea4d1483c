package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.jobqueue.core.store.Completion;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * Writes run outcomes inside a write transaction the caller holds: the job's new state,
 * the end of its attempt and an event. Every write is fenced: it matches the job's
 * {@code runs} counter and {@code running} status, so a worker whose lease was taken over
 * cannot overwrite the newer run's outcome. Successes, the common case, go as one batch.
 */
final class SqliteCompletions {

	private static final String MARK_SUCCEEDED = """
			UPDATE {jobs}
			SET status = 'succeeded', result = :result, finished_at = :now, lease_until = NULL, error_code = NULL,
			    error_detail = NULL
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

	private static final String MARK_FAILED = """
			UPDATE {jobs}
			SET status = 'failed', finished_at = :now, lease_until = NULL, error_code = :error_code,
			    error_detail = :error_detail
			WHERE id = :job_id AND runs = :run AND status = 'running'
			RETURNING status
			""";

	private static final String MARK_CANCELLED = """
			UPDATE {jobs}
			SET status = 'cancelled', finished_at = :now, lease_until = NULL
			WHERE id = :job_id AND runs = :run AND status = 'running'
			RETURNING status
			""";

	/**
	 * Back to pending: a retry after its backoff, or (giving the attempt back) a snooze
	 * or hand-back.
	 */
	private static final String MARK_PENDING_AGAIN = """
			UPDATE {jobs}
			SET status = CASE WHEN cancel_requested = 1 THEN 'cancelled' ELSE 'pending' END,
			    finished_at = CASE WHEN cancel_requested = 1 THEN :now END,
			    run_at = :next_run_at, lease_until = NULL, error_code = coalesce(:error_code, error_code),
			    error_detail = coalesce(:error_detail, error_detail),
			    attempts = attempts - :attempt_given_back, snoozes = snoozes + :snoozed
			WHERE id = :job_id AND runs = :run AND status = 'running'
			RETURNING status
			""";

	private static final String FINISH_ATTEMPT = """
			UPDATE {attempts} SET finished_at = :now, outcome = :outcome, error_code = :error_code,
			    error_detail = :error_detail, error_trace = :error_trace
			WHERE job_id = :job_id AND run = :run
			""";

	private final Sql markSucceeded;

	private final Sql markFailed;

	private final Sql markCancelled;

	private final Sql markPendingAgain;

	private final Sql finishAttempt;

	private final JobEvents events;

	private final SqliteLinks links;

	SqliteCompletions(Tables tables, JobEvents events) {
		this.links = new SqliteLinks(tables, events);
		this.markSucceeded = tables.sql(MARK_SUCCEEDED);
		this.markFailed = tables.sql(MARK_FAILED);
		this.markCancelled = tables.sql(MARK_CANCELLED);
		this.markPendingAgain = tables.sql(MARK_PENDING_AGAIN);
		this.finishAttempt = tables.sql(FINISH_ATTEMPT);
		this.events = events;
	}

	/**
	 * @return for each completion, whether it applied; a completion whose run no longer
	 * holds the job is rejected
	 */
	boolean[] write(Connection connection, List<Completion> completions, String workerId, Instant now)
			throws SQLException {
		boolean[] applied = new boolean[completions.size()];
		String[] statuses = new String[completions.size()];
		List<Integer> successes = new ArrayList<>();
		for (int i = 0; i < completions.size(); i++) {
			if (completions.get(i).kind() == Completion.Kind.SUCCEEDED) {
				successes.add(i);
			}
			else {
				statuses[i] = markOther(connection, completions.get(i), now);
				applied[i] = statuses[i] != null;
			}
		}
		if (!successes.isEmpty()) {
			try (SqlStatement succeed = this.markSucceeded.prepare(connection)) {
				for (int i : successes) {
					Completion completion = completions.get(i);
					succeed.bind("result", completion.result())
						.bind("now", now)
						.bind("job_id", completion.jobId())
						.bind("run", completion.run())
						.addBatch();
				}
				int[] counts = succeed.executeBatch();
				for (int k = 0; k < successes.size(); k++) {
					int i = successes.get(k);
					applied[i] = counts[k] > 0;
					statuses[i] = "succeeded";
				}
			}
		}
		try (SqlStatement attempt = prepareFinishAttempt(connection);
				SqlStatement event = this.events.prepare(connection)) {
			for (int i = 0; i < completions.size(); i++) {
				if (applied[i]) {
					recordOutcome(attempt, event, completions.get(i), statuses[i], workerId, now);
				}
			}
			attempt.executeBatch();
			event.executeBatch();
		}
		Map<Long, String> finished = new HashMap<>();
		for (int i = 0; i < completions.size(); i++) {
			Completion completion = completions.get(i);
			if (applied[i] && FINAL.contains(statuses[i])) {
				finished.put(completion.jobId(), statuses[i]);
			}
			if (applied[i] && completion.kind() == Completion.Kind.SUCCEEDED && !completion.next().isEmpty()) {
				this.links.continueChain(connection, completion, workerId, now);
			}
		}
		this.links.settle(connection, finished, workerId, now);
		return applied;
	}

	private static final Set<String> FINAL = Set.of("succeeded", "failed", "cancelled");

	/**
	 * Settles the jobs waiting for jobs finished outside a completion (see
	 * {@link SqliteLinks#settle}).
	 */
	void settle(Connection connection, Map<Long, String> finished, String actor, Instant now) throws SQLException {
		this.links.settle(connection, finished, actor, now);
	}

	/**
	 * @return the job's new status, or {@code null} if the run no longer holds the job
	 */
	private String markOther(Connection connection, Completion completion, Instant now) throws SQLException {
		Sql statement = switch (completion.kind()) {
			case FAILED -> this.markFailed;
			case CANCELLED -> this.markCancelled;
			default -> this.markPendingAgain;
		};
		try (SqlStatement mark = statement.prepare(connection)) {
			mark.bind("now", now).bind("job_id", completion.jobId()).bind("run", completion.run());
			if (completion.kind() == Completion.Kind.FAILED) {
				mark.bind("error_code", completion.errorCode()).bind("error_detail", completion.errorDetail());
			}
			else if (completion.kind() != Completion.Kind.CANCELLED) {
				mark.bind("next_run_at", completion.nextRunAt())
					.bind("error_code", completion.errorCode())
					.bind("error_detail", jobErrorDetail(completion))
					.bind("attempt_given_back", completion.kind() != Completion.Kind.RETRY)
					.bind("snoozed", completion.kind() == Completion.Kind.SNOOZED);
			}
			return mark.queryString();
		}
	}

	private static void recordOutcome(SqlStatement attempt, SqlStatement event, Completion completion, String status,
			String workerId, Instant now) throws SQLException {
		String outcome = switch (completion.kind()) {
			case SUCCEEDED -> "SUCCEEDED";
			case RETRY, FAILED -> "FAILED";
			case SNOOZED -> "SNOOZED";
			case CANCELLED -> "CANCELLED";
			case HANDED_BACK -> "HANDED_BACK";
		};
		finishAttempt(attempt, completion.jobId(), completion.run(), outcome, completion.errorCode(),
				completion.errorDetail(), completion.errorTrace(), now);
		long id = completion.jobId();
		if ("cancelled".equals(status)) {
			JobEvents.add(event, id, now, "CANCELLED", workerId, null);
			return;
		}
		switch (completion.kind()) {
			case SUCCEEDED -> JobEvents.add(event, id, now, "SUCCEEDED", workerId, null);
			case FAILED -> JobEvents.add(event, id, now, "FAILED", workerId, completion.errorCode());
			case RETRY -> JobEvents.add(event, id, now, "RETRY_SCHEDULED", workerId,
					completion.errorCode() + " retry at " + completion.nextRunAt());
			case SNOOZED -> JobEvents.add(event, id, now, "SNOOZED", workerId, "until " + completion.nextRunAt());
			case CANCELLED -> JobEvents.add(event, id, now, "CANCELLED", workerId, null);
			case HANDED_BACK -> JobEvents.add(event, id, now, "HANDED_BACK", workerId, handedBackDetail(completion));
		}
	}

	/**
	 * The error detail a completion leaves on the job: a hand-back's detail describes the
	 * hand-back, not a failure, so it goes on the attempt and the event only.
	 */
	static String jobErrorDetail(Completion completion) {
		return (completion.kind() == Completion.Kind.HANDED_BACK) ? null : completion.errorDetail();
	}

	/** The detail of a {@code HANDED_BACK} event. */
	static String handedBackDetail(Completion completion) {
		return (completion.errorDetail() != null) ? completion.errorDetail() : "worker stopped before the run ended";
	}

	/**
	 * A statement to {@link #finishAttempt} attempts with; the caller runs the batch and
	 * closes it.
	 */
	SqlStatement prepareFinishAttempt(Connection connection) throws SQLException {
		return this.finishAttempt.prepare(connection);
	}

	/** Adds the end of a run's attempt to the batch of {@code attempt}. */
	static void finishAttempt(SqlStatement attempt, long jobId, int run, String outcome, String errorCode,
			String errorDetail, String errorTrace, Instant now) throws SQLException {
		attempt.bind("now", now)
			.bind("outcome", outcome)
			.bind("error_code", errorCode)
			.bind("error_detail", errorDetail)
			.bind("error_trace", errorTrace)
			.bind("job_id", jobId)
			.bind("run", run)
			.addBatch();
	}

}
