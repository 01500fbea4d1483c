package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.JobStep;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.RunningJobRef;

/**
 * The durable steps of jobs ({@link dev.jobqueue.JobContext#step}) on any JDBC database:
 * read a job's steps, record one fenced on its run, forget them on a retry that starts
 * over. Plain SQL every store runs as it is; retention deletes steps with their job (the
 * table's foreign key cascades).
 */
public final class JdbcSteps {

	/**
	 * The fence of a step's record: the run still holds its job. An update, not a read,
	 * so the job's row stays locked until the record commits and no recovery can hand the
	 * job to a newer run in between (on PostgreSQL and MySQL, whose reads take no lock);
	 * it moves the heartbeat too, since a step is proof of the handler's life.
	 */
	static final String FENCE = """
			UPDATE {jobs} SET heartbeat_at = :now
			WHERE id = :job_id AND runs = :run AND status = 'running'
			""";

	static final String INSERT = """
			INSERT INTO {steps} (job_id, name, position, result, run, attempt, started_at, recorded_at)
			VALUES (:job_id, :name, :position, :result, :run, :attempt, :started_at, :recorded_at)
			""";

	static final String SELECT = """
			SELECT name, position, result, run, attempt, started_at, recorded_at FROM {steps}
			WHERE job_id = :job_id ORDER BY position
			""";

	/** The steps of one job as the insights show them, results shortened. */
	static final String SELECT_SHORTENED = """
			SELECT name, length(result), substr(result, 1, :preview), run, attempt, started_at, recorded_at
			FROM {steps} WHERE job_id = :job_id ORDER BY position
			""";

	static final String DELETE = """
			DELETE FROM {steps} WHERE job_id = :job_id
			""";

	private final Tables tables;

	private final Sql fence;

	private final Sql insert;

	private final Sql select;

	private final Sql selectShortened;

	private final Sql delete;

	public JdbcSteps(Tables tables) {
		this.tables = tables;
		this.fence = tables.sql(FENCE);
		this.insert = tables.sql(INSERT);
		this.select = tables.sql(SELECT);
		this.selectShortened = tables.sql(SELECT_SHORTENED);
		this.delete = tables.sql(DELETE);
	}

	/** The job's steps, in the order they were recorded. */
	public List<JobStep> read(Connection connection, long jobId) throws SQLException {
		List<JobStep> steps = new ArrayList<>();
		try (SqlStatement select = this.select.prepare(connection);
				ResultSet rows = select.bind("job_id", jobId).executeQuery()) {
			while (rows.next()) {
				steps.add(new JobStep(rows.getString(1), rows.getInt(2), rows.getString(3), rows.getInt(4),
						rows.getInt(5), this.tables.dialect().instant(rows, 6),
						this.tables.dialect().instant(rows, 7)));
			}
		}
		return steps;
	}

	/**
	 * Records a step if {@code run} still holds its job, in the caller's transaction.
	 * @return whether it was recorded
	 */
	public boolean record(Connection connection, RunningJobRef run, JobStep step) throws SQLException {
		try (SqlStatement fence = this.fence.prepare(connection)) {
			int held = fence.bind("now", step.recordedAt())
				.bind("job_id", run.jobId())
				.bind("run", run.run())
				.executeUpdate();
			if (held == 0) {
				return false;
			}
		}
		try (SqlStatement insert = this.insert.prepare(connection)) {
			insert.bind("job_id", run.jobId())
				.bind("name", step.name())
				.bind("position", step.position())
				.bind("result", step.result())
				.bind("run", step.run())
				.bind("attempt", step.attempt())
				.bind("started_at", step.startedAt())
				.bind("recorded_at", step.recordedAt())
				.executeUpdate();
		}
		return true;
	}

	/** Forgets a job's steps, in the caller's transaction. */
	public int delete(Connection connection, long jobId) throws SQLException {
		try (SqlStatement delete = this.delete.prepare(connection)) {
			return delete.bind("job_id", jobId).executeUpdate();
		}
	}

	/** The job's steps with results cut to {@code preview} characters (0: none). */
	List<QueueInsights.Step> shortened(Connection connection, long jobId, int preview) throws SQLException {
		List<QueueInsights.Step> steps = new ArrayList<>();
		try (SqlStatement select = this.selectShortened.prepare(connection)) {
			select.bind("preview", Math.max(1, preview)).bind("job_id", jobId);
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					QueueInsights.Text result = null;
					if (rows.getObject(3) != null) {
						long length = rows.getLong(2);
						String start = (preview > 0) ? rows.getString(3) : null;
						result = new QueueInsights.Text(length, start,
								(start == null) ? length > 0 : start.length() < length);
					}
					steps.add(new QueueInsights.Step(rows.getString(1), result, rows.getInt(4), rows.getInt(5),
							this.tables.dialect().instant(rows, 6), this.tables.dialect().instant(rows, 7)));
				}
			}
		}
		return steps;
	}

}
