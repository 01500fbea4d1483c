package dev.jobqueue.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;

import javax.sql.DataSource;

import dev.jobqueue.JobStatus;

/**
 * Inserts many jobs fast for retention tests and benchmarks: one
 * {@code INSERT ... SELECT} from a recursive CTE per chunk, with an attempt row and
 * events per job like the worker writes them, in transactions of {@value #CHUNK} jobs.
 */
public final class JobRows {

	static final int CHUNK = 50_000;

	private static final String INSERT_JOBS = """
			INSERT INTO %1$sjobs (type, status, priority, payload, result, attempts, max_attempts, runs, run_at,
			    created_at, started_at, finished_at, worker_id, error_code, error_detail)
			WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
			SELECT ?, ?, 0,
			    '{"imageId":' || (? + i) || ',"bucket":"photos-2026","size":"large","owner":"user-' || ((? + i) %% 977) || '"}',
			    CASE WHEN ? = 'succeeded' THEN '{"width":1024,"height":768,"bytes":' || (i * 37 %% 100000) || '}' END,
			    1, 5, 1, ? + i * ?, ? + i * ?, ? + i * ?, ? + i * ?, 'host-1:4242:beef',
			    CASE WHEN ? = 'failed' THEN 'DEPENDENCY:GEOCODER' END,
			    CASE WHEN ? = 'failed' THEN 'geocoder answered 503 Service Unavailable after 30 s' END
			FROM n
			""";

	private static final String INSERT_ATTEMPTS = """
			INSERT INTO %1$sjob_attempts (job_id, run, attempt, worker_id, started_at, finished_at, outcome, error_code)
			SELECT id, 1, 1, worker_id, started_at, finished_at, upper(status), error_code FROM %1$sjobs
			WHERE id > ? AND status IN ('succeeded', 'failed', 'cancelled')
			""";

	private static final String INSERT_EVENTS = """
			INSERT INTO %1$sjob_events (job_id, at, event, actor, detail)
			SELECT id, created_at, 'ENQUEUED', NULL, NULL FROM %1$sjobs WHERE id > ?
			UNION ALL SELECT id, started_at, 'CLAIMED', worker_id, 'attempt 1/5' FROM %1$sjobs
			    WHERE id > ? AND status <> 'pending'
			UNION ALL SELECT id, finished_at, upper(status), worker_id, error_code FROM %1$sjobs
			    WHERE id > ? AND status IN ('succeeded', 'failed', 'cancelled')
			""";

	private JobRows() {
	}

	/**
	 * Inserts {@code count} jobs of {@code type} in {@code status}, finished (or created,
	 * for unfinished ones) from {@code firstFinishedAt} on, {@code spacing} apart, with
	 * their attempt and events.
	 */
	/** The first column of the first row of {@code sql} on the queue file, for counts. */
	public static long count(Path file, String sql) {
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(sql)) {
			rows.next();
			return rows.getLong(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	public static void insert(DataSource dataSource, String prefix, int count, String type, JobStatus status,
			Instant firstFinishedAt, Duration spacing) {
		try (Connection connection = dataSource.getConnection()) {
			for (int done = 0; done < count; done += CHUNK) {
				int chunk = Math.min(CHUNK, count - done);
				Instant first = firstFinishedAt.plus(spacing.multipliedBy(done));
				insertChunk(connection, prefix, chunk, type, status, first, spacing.toMillis(), done);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not insert test jobs: " + ex.getMessage(), ex);
		}
	}

	private static void insertChunk(Connection connection, String prefix, int count, String type, JobStatus status,
			Instant first, long spacing, int offset) throws SQLException {
		String value = status.dbValue();
		boolean finished = status.isFinal();
		long finishedAt = first.toEpochMilli();
		long createdAt = finishedAt - 60_000;
		try (Statement statement = connection.createStatement()) {
			statement.execute("BEGIN IMMEDIATE");
			try {
				long maxId = maxId(statement, prefix);
				try (PreparedStatement insert = connection.prepareStatement(INSERT_JOBS.formatted(prefix))) {
					int i = 1;
					insert.setInt(i++, count);
					insert.setString(i++, type);
					insert.setString(i++, value);
					insert.setInt(i++, offset);
					insert.setInt(i++, offset);
					insert.setString(i++, value);
					insert.setLong(i++, createdAt);
					insert.setLong(i++, spacing);
					insert.setLong(i++, createdAt);
					insert.setLong(i++, spacing);
					if (status == JobStatus.PENDING) {
						insert.setNull(i++, java.sql.Types.BIGINT);
						insert.setLong(i++, 0);
					}
					else {
						insert.setLong(i++, finishedAt - 1_000);
						insert.setLong(i++, spacing);
					}
					if (finished) {
						insert.setLong(i++, finishedAt);
					}
					else {
						insert.setNull(i++, java.sql.Types.BIGINT);
					}
					insert.setLong(i++, spacing);
					insert.setString(i++, value);
					insert.setString(i, value);
					insert.executeUpdate();
				}
				try (PreparedStatement attempts = connection.prepareStatement(INSERT_ATTEMPTS.formatted(prefix))) {
					attempts.setLong(1, maxId);
					attempts.executeUpdate();
				}
				try (PreparedStatement events = connection.prepareStatement(INSERT_EVENTS.formatted(prefix))) {
					events.setLong(1, maxId);
					events.setLong(2, maxId);
					events.setLong(3, maxId);
					events.executeUpdate();
				}
				statement.execute("COMMIT");
			}
			catch (SQLException | RuntimeException ex) {
				statement.execute("ROLLBACK");
				throw ex;
			}
		}
	}

	private static long maxId(Statement statement, String prefix) throws SQLException {
		try (ResultSet rows = statement.executeQuery("SELECT coalesce(max(id), 0) FROM " + prefix + "jobs")) {
			rows.next();
			return rows.getLong(1);
		}
	}

}
