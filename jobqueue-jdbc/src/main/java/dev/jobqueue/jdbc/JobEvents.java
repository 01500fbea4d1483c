package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/** The job timeline's one statement, shared by every class that changes a job. */
public final class JobEvents {

	private static final String INSERT_EVENT = """
			INSERT INTO {events} (job_id, at, event, actor, detail) VALUES (:job_id, :at, :event, :actor, :detail)
			""";

	private final Sql insert;

	public JobEvents(Tables tables) {
		this.insert = tables.sql(INSERT_EVENT);
	}

	/** A statement to {@link #add} events to; the caller runs the batch and closes it. */
	public SqlStatement prepare(Connection connection) throws SQLException {
		return this.insert.prepare(connection);
	}

	/** Adds an event to the batch of {@code events}. */
	public static void add(SqlStatement events, long jobId, Instant at, String event, String actor, String detail)
			throws SQLException {
		events.bind("job_id", jobId)
			.bind("at", at)
			.bind("event", event)
			.bind("actor", actor)
			.bind("detail", detail)
			.addBatch();
	}

}
