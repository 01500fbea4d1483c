package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Objects;

import dev.jobqueue.jdbc.ChangeNotifier;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * Tells other processes of due jobs and cancels with {@code pg_notify} in the writing
 * transaction; PostgreSQL delivers the messages on commit (see
 * {@link PostgresNotifications}).
 */
final class PostgresChangeNotifier implements ChangeNotifier {

	private static final String JOBS_DUE = "SELECT pg_notify(:channel, :message)";

	/** One message per job, {@code #} standing for its id. */
	private static final String CANCEL_REQUESTED = """
			SELECT pg_notify(:channel, replace(:message, '#', id::text)) FROM unnest(:ids) AS requested(id)
			""";

	private final PostgresJobStore jobs;

	private final Tables tables;

	PostgresChangeNotifier(PostgresJobStore jobs) {
		this.jobs = Objects.requireNonNull(jobs, "'jobs' must not be null");
		this.tables = jobs.tables();
	}

	@Override
	public void jobsDue(Connection connection) throws SQLException {
		try (SqlStatement notify = this.tables.sql(JOBS_DUE).prepare(connection)) {
			this.jobs.notification(notify, PostgresNotifications.ENQUEUED);
			notify.executeQuery().close();
		}
	}

	@Override
	public void cancelRequested(Connection connection, Collection<Long> jobIds) throws SQLException {
		try (SqlStatement notify = this.tables.sql(CANCEL_REQUESTED).prepare(connection)) {
			this.jobs.notification(notify, PostgresNotifications.CANCEL + "#");
			notify.bindIds("ids", jobIds).executeQuery().close();
		}
	}

}
