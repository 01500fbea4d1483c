package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;

import javax.sql.DataSource;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.JdbcSchema;
import dev.jobqueue.jdbc.SqlErrors;
import dev.jobqueue.jdbc.Tables;

/**
 * The queue's schema on PostgreSQL ({@link JdbcSchema}), in the queue's schema (created
 * when missing and the user may), on a server new enough. Flyway takes a PostgreSQL
 * advisory lock while it migrates, so processes starting at once migrate one after
 * another.
 */
public final class PostgresSchema extends JdbcSchema {

	public static final String MIGRATION_LOCATION = "classpath:dev/jobqueue/postgresql/migration";

	/**
	 * The oldest server the queue supports: {@code hashtextextended} and identity columns
	 * need 11; 13 is tested.
	 */
	static final int MINIMUM_SERVER_VERSION = 13;

	private final String location;

	public PostgresSchema(DataSource dataSource, Tables tables, String location) {
		super(dataSource, tables, MIGRATION_LOCATION);
		this.location = Objects.requireNonNull(location, "'location' must not be null");
	}

	@Override
	protected String checkConnection() {
		checkServer();
		return this.location;
	}

	@Override
	protected String storeModule() {
		return "jobqueue-postgresql";
	}

	@Override
	protected String elsewhere() {
		return "point it at another schema with jobqueue.postgresql.schema";
	}

	private void checkServer() {
		try (Connection connection = dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT current_setting('server_version_num')::int")) {
			int version = rows.next() ? rows.getInt(1) : 0;
			if (version / 10000 < MINIMUM_SERVER_VERSION) {
				throw new JobQueueException("The queue needs PostgreSQL " + MINIMUM_SERVER_VERSION + " or newer; "
						+ this.location + " runs " + version + ". Upgrade the server, or keep the queue on SQLite.");
			}
		}
		catch (SQLException ex) {
			throw PostgresErrors.translate(ex, "open the queue database", this.location);
		}
	}

	@Override
	protected JobQueueException failure(String action, RuntimeException ex) {
		String state = PostgresErrors.state(ex);
		if (state.equals(PostgresErrors.INSUFFICIENT_PRIVILEGE)) {
			return new JobQueueException(
					"Could not " + action + " in " + this.location + ": the database user lacks " + "a privilege ("
							+ SqlErrors.rootMessage(ex) + "). Either have an administrator create the schema for it "
							+ "(CREATE SCHEMA " + tables().schema() + " AUTHORIZATION <user>), grant it CREATE on the "
							+ "database or the schema, or set jobqueue.postgresql.schema to a schema it owns.",
					ex);
		}
		if (PostgresErrors.isConnectionFailure(ex)) {
			return new JobQueueException(
					"Could not " + action + ": the PostgreSQL server at " + this.location + " cannot be reached ("
							+ SqlErrors.rootMessage(ex) + "). Start it or fix jobqueue.datasource.url; the "
							+ "queue's schema is migrated at start-up, so the application cannot start without it.",
					ex);
		}
		return new JobQueueException("Could not " + action + " in " + this.location + ": " + SqlErrors.rootMessage(ex),
				ex);
	}

}
