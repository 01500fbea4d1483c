package dev.jobqueue.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.Job;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.QueueInsights.JobSummary;

/**
 * The job row as the admin and the insights read it: the column lists their statements
 * select, and the mappers from those columns to a {@link Job} or a {@link JobSummary}.
 */
public final class JobColumns {

	/** The columns of a {@link Job}, read by {@link #job}. */
	public static final String JOB = """
			id, type, status, priority, payload, result, dedup_key, attempts, max_attempts, run_at, created_at,
			started_at, finished_at, worker_id, heartbeat_at, lease_until, error_code, error_detail, cancel_requested,
			chain_id, chain_index, waiting_for, job_key""";

	/** The columns of a {@link JobSummary}, read by {@link #summary}. */
	public static final String SUMMARY = """
			id, type, status, priority, attempts, max_attempts, created_at, run_at, started_at, finished_at,
			worker_id, heartbeat_at, error_code, job_key""";

	/**
	 * How many columns {@link #SUMMARY} has: a statement that selects more after them
	 * reads those from the next position on.
	 */
	public static final int SUMMARY_COLUMNS = SUMMARY.split(",").length;

	private JobColumns() {
	}

	/** Maps the {@link #JOB} columns of the current row. */
	public static Job job(ResultSet rows, Dialect dialect) throws SQLException {
		return new Job(rows.getLong("id"), rows.getString("type"), JobStatus.fromDbValue(rows.getString("status")),
				rows.getInt("priority"), rows.getString("payload"), rows.getString("result"),
				rows.getString("dedup_key"), rows.getInt("attempts"), rows.getInt("max_attempts"),
				dialect.instant(rows, "run_at"), dialect.instant(rows, "created_at"),
				dialect.instant(rows, "started_at"), dialect.instant(rows, "finished_at"), rows.getString("worker_id"),
				dialect.instant(rows, "heartbeat_at"), dialect.instant(rows, "lease_until"),
				rows.getString("error_code"), rows.getString("error_detail"), rows.getBoolean("cancel_requested"),
				Columns.nullableLong(rows, "chain_id"), Columns.nullableInt(rows, "chain_index"),
				rows.getInt("waiting_for"), rows.getString("job_key"));
	}

	/** Maps the {@link #SUMMARY} columns of the current row. */
	public static JobSummary summary(ResultSet rows, Dialect dialect) throws SQLException {
		return new JobSummary(rows.getLong("id"), rows.getString("type"),
				JobStatus.fromDbValue(rows.getString("status")), rows.getInt("priority"), rows.getInt("attempts"),
				rows.getInt("max_attempts"), dialect.instant(rows, "created_at"), dialect.instant(rows, "run_at"),
				dialect.instant(rows, "started_at"), dialect.instant(rows, "finished_at"), rows.getString("worker_id"),
				dialect.instant(rows, "heartbeat_at"), rows.getString("error_code"), rows.getString("job_key"));
	}

	/** Runs a query of the {@link #SUMMARY} columns. */
	public static List<JobSummary> summaries(SqlStatement select, Dialect dialect) throws SQLException {
		List<JobSummary> summaries = new ArrayList<>();
		try (ResultSet rows = select.executeQuery()) {
			while (rows.next()) {
				summaries.add(summary(rows, dialect));
			}
		}
		return summaries;
	}

}
