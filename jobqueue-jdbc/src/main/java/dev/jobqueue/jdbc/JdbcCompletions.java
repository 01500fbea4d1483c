package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.jobqueue.core.store.Completion;

/**
 * Writes run outcomes inside a write transaction the caller holds: the job's new state,
 * the end of its attempt and an event, then the continuations of applied successes, then
 * the jobs waiting for the jobs that finished are settled, and last the jobs that
 * finished are added to the counts of finished jobs ({@link FinishedCounts}, under the
 * type each completion carries: no store reads it again) and the round's runs to the
 * outcome rollup ({@link OutcomeMinutes}). Every write is fenced: it matches the job's
 * {@code runs} counter and {@code running} status, so a worker whose lease was taken over
 * cannot overwrite the newer run's outcome.
 *
 * <p>
 * Successes, the common case, are marked together the store's way ({@link Successes});
 * the other outcomes one statement each, written by the store, which take {@code :now},
 * {@code :job_id}, {@code :run} and (failed) {@code :error_code}, {@code :error_detail}
 * or (pending again) {@code :next_run_at}, {@code :error_code}, {@code :error_detail},
 * {@code :gives_back}, {@code :snoozed}, and return the new status and whether jobs wait
 * for the job.
 */
public final class JdbcCompletions {

	/** The end of a run's attempt. */
	public static final String FINISH_ATTEMPT = """
			UPDATE {attempts} SET finished_at = :now, outcome = :outcome, error_code = :error_code,
			    error_detail = :error_detail, error_trace = :error_trace
			WHERE job_id = :job_id AND run = :run
			""";

	/** How a store marks a round's successes. */
	public interface Successes {

		/**
		 * Marks {@code successes} succeeded, fenced on their runs.
		 * @param finished where to put each applied success that jobs may wait for
		 * ({@code "succeeded"})
		 * @return for each success, whether it applied
		 */
		boolean[] mark(Connection connection, List<Completion> successes, String workerId, Instant now,
				Map<Long, String> finished) throws SQLException;

		/**
		 * Whether {@link #mark} also ends the attempts and writes the events of the
		 * successes; else they are written with the other outcomes'.
		 */
		boolean recordsOutcome();

	}

	/**
	 * What a round of outcomes did.
	 *
	 * @param applied for each completion, whether it applied
	 * @param turnedPending how many waiting jobs turned pending when jobs they waited for
	 * finished
	 */
	public record Written(boolean[] applied, int turnedPending) {

	}

	private final JobEvents events;

	private final Links links;

	private final Successes successes;

	private final Sql markFailed;

	private final Sql markCancelled;

	private final Sql markPendingAgain;

	private final Sql finishAttempt;

	private final Sql readOutcome;

	private final OutcomeMinutes outcomeMinutes;

	private final FinishedCounts finishedCounts;

	/**
	 * @param markFailed the statement of a failure
	 * @param markCancelled of a run that ends cancelled
	 * @param markPendingAgain of a retry, a snooze or a hand-back
	 */
	public JdbcCompletions(Tables tables, JobEvents events, Links links, Successes successes, String markFailed,
			String markCancelled, String markPendingAgain) {
		this(tables, events, links, successes, markFailed, markCancelled, markPendingAgain, null);
	}

	/**
	 * For a database whose UPDATE returns no rows: the three statements only update, and
	 * {@code readOutcome} reads the job's new status and whether jobs wait for it
	 * ({@code :job_id}) after an update that applied.
	 */
	public JdbcCompletions(Tables tables, JobEvents events, Links links, Successes successes, String markFailed,
			String markCancelled, String markPendingAgain, String readOutcome) {
		this.events = Objects.requireNonNull(events, "'events' must not be null");
		this.links = Objects.requireNonNull(links, "'links' must not be null");
		this.successes = Objects.requireNonNull(successes, "'successes' must not be null");
		this.markFailed = tables.sql(markFailed);
		this.markCancelled = tables.sql(markCancelled);
		this.markPendingAgain = tables.sql(markPendingAgain);
		this.finishAttempt = tables.sql(FINISH_ATTEMPT);
		this.readOutcome = (readOutcome != null) ? tables.sql(readOutcome) : null;
		this.outcomeMinutes = new OutcomeMinutes(tables);
		this.finishedCounts = new FinishedCounts(tables);
	}

	/** Writes the outcomes, continuations and settles of one round. */
	public Written write(Connection connection, List<Completion> completions, String workerId, Instant now)
			throws SQLException {
		boolean[] applied = new boolean[completions.size()];
		String[] statuses = new String[completions.size()];
		Map<Long, String> finished = new LinkedHashMap<>();
		FinishedCounts.Changes changes = new FinishedCounts.Changes();
		List<Integer> successIndexes = new ArrayList<>();
		List<Completion> successes = new ArrayList<>();
		for (int i = 0; i < completions.size(); i++) {
			if (completions.get(i).kind() == Completion.Kind.SUCCEEDED) {
				successIndexes.add(i);
				successes.add(completions.get(i));
			}
		}
		if (!successes.isEmpty()) {
			boolean[] marked = this.successes.mark(connection, successes, workerId, now, finished);
			for (int k = 0; k < marked.length; k++) {
				applied[successIndexes.get(k)] = marked[k];
				statuses[successIndexes.get(k)] = "succeeded";
				if (marked[k]) {
					changes.finished(successes.get(k).type(), "succeeded");
				}
			}
		}
		boolean recordSuccesses = !this.successes.recordsOutcome();
		boolean anyToRecord = recordSuccesses && !successes.isEmpty();
		for (int i = 0; i < completions.size(); i++) {
			if (statuses[i] == null) {
				statuses[i] = markOther(connection, completions.get(i), now, finished, changes);
				applied[i] = statuses[i] != null;
				anyToRecord = true;
			}
		}
		if (anyToRecord) {
			try (SqlStatement attempt = prepareFinishAttempt(connection);
					SqlStatement event = this.events.prepare(connection)) {
				for (int i = 0; i < completions.size(); i++) {
					boolean success = completions.get(i).kind() == Completion.Kind.SUCCEEDED;
					if (applied[i] && (recordSuccesses || !success)) {
						recordOutcome(attempt, event, completions.get(i), statuses[i], workerId, now);
					}
				}
				attempt.executeBatch();
				event.executeBatch();
			}
		}
		for (int i : successIndexes) {
			Completion completion = completions.get(i);
			if (applied[i] && !completion.next().isEmpty()) {
				this.links.continueChain(connection, completion, workerId, now, changes);
			}
		}
		int turnedPending = settle(connection, finished, workerId, now, changes);
		// Last: the count and rollup rows are the rows writers may share, held for the
		// shortest time.
		this.finishedCounts.add(connection, workerId, changes);
		this.outcomeMinutes.add(connection, workerId, now, counts(completions, applied, statuses));
		return new Written(applied, turnedPending);
	}

	/** What the applied completions count as in the outcome rollup. */
	private static OutcomeMinutes.Counts counts(List<Completion> completions, boolean[] applied, String[] statuses) {
		OutcomeMinutes.Counts counts = new OutcomeMinutes.Counts();
		for (int i = 0; i < completions.size(); i++) {
			if (applied[i]) {
				switch (completions.get(i).kind()) {
					case SUCCEEDED -> counts.succeeded();
					case RETRY, FAILED -> counts.failed(statuses[i]);
					default -> {
					}
				}
			}
		}
		return counts;
	}

	/**
	 * Settles the jobs waiting for jobs finished outside a completion (see
	 * {@link Links#settle}).
	 * @param changes where the jobs the settle ends are counted
	 * @return how many jobs turned pending
	 */
	public int settle(Connection connection, Map<Long, String> finished, String actor, Instant now,
			FinishedCounts.Changes changes) throws SQLException {
		return finished.isEmpty() ? 0 : this.links.settle(connection, finished, actor, now, changes);
	}

	/**
	 * @return the job's new status, or {@code null} if the run no longer holds the job
	 */
	private String markOther(Connection connection, Completion completion, Instant now, Map<Long, String> finished,
			FinishedCounts.Changes changes) throws SQLException {
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
					.bind("gives_back", (completion.kind() != Completion.Kind.RETRY) ? 1 : 0)
					.bind("snoozed", (completion.kind() == Completion.Kind.SNOOZED) ? 1 : 0);
			}
			if (this.readOutcome == null) {
				try (ResultSet rows = mark.executeQuery()) {
					return outcome(rows, completion, finished, changes);
				}
			}
			if (mark.executeUpdate() == 0) {
				return null;
			}
		}
		// The update locked the job's row: the read sees what it wrote.
		try (SqlStatement read = this.readOutcome.prepare(connection);
				ResultSet rows = read.bind("job_id", completion.jobId()).executeQuery()) {
			return outcome(rows, completion, finished, changes);
		}
	}

	/** Reads an outcome statement's row: the new status, whether jobs wait. */
	private static String outcome(ResultSet rows, Completion completion, Map<Long, String> finished,
			FinishedCounts.Changes changes) throws SQLException {
		if (!rows.next()) {
			return null;
		}
		String status = rows.getString(1);
		if (!"pending".equals(status) && rows.getBoolean(2)) {
			finished.put(completion.jobId(), status);
		}
		changes.finished(completion.type(), status);
		return status;
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

	/** The outcome rollup this writes to, for lease recovery's outcomes. */
	public OutcomeMinutes outcomeMinutes() {
		return this.outcomeMinutes;
	}

	/** The counts of finished jobs this writes to, for lease recovery's outcomes. */
	public FinishedCounts finishedCounts() {
		return this.finishedCounts;
	}

	/**
	 * A statement to {@link #finishAttempt} attempts with; the caller runs the batch and
	 * closes it.
	 */
	public SqlStatement prepareFinishAttempt(Connection connection) throws SQLException {
		return this.finishAttempt.prepare(connection);
	}

	/** Adds the end of a run's attempt to the batch of {@code attempt}. */
	public static void finishAttempt(SqlStatement attempt, long jobId, int run, String outcome, String errorCode,
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
