package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.JdbcSchema;
import dev.jobqueue.jdbc.ServerSchema;
import dev.jobqueue.jdbc.Tables;

/**
 * The queue's schema on PostgreSQL ({@link JdbcSchema}), in the queue's schema (created
 * when missing and the user may), on a server new enough. Flyway takes a PostgreSQL
 * advisory lock while it migrates, so processes starting at once migrate one after
 * another.
 */
public final class PostgresSchema extends ServerSchema {

	public static final String MIGRATION_LOCATION = "classpath:dev/jobqueue/postgresql/migration";

	/**
	 * The oldest server the queue supports: {@code hashtextextended} and identity columns
	 * need 11; 13 is tested.
	 */
	static final int MINIMUM_SERVER_VERSION = 13;

	public PostgresSchema(DataSource dataSource, Tables tables, String location) {
		super(dataSource, tables, MIGRATION_LOCATION, location, PostgresErrors.INSTANCE);
	}

	@Override
	protected String storeModule() {
		return "jobqueue-postgresql";
	}

	@Override
	protected String elsewhere() {
		return "point it at another schema with jobqueue.postgresql.schema";
	}

	@Override
	protected void checkServer(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT current_setting('server_version_num')::int")) {
			int version = rows.next() ? rows.getInt(1) : 0;
			if (version / 10000 < MINIMUM_SERVER_VERSION) {
				throw new JobQueueException("The queue needs PostgreSQL " + MINIMUM_SERVER_VERSION + " or newer; "
						+ location() + " runs " + version + ". Upgrade the server, or keep the queue on SQLite.");
			}
		}
	}

	@Override
	protected String privilegeAdvice() {
		return "Either have an administrator create the schema for it (CREATE SCHEMA " + tables().schema()
				+ " AUTHORIZATION <user>), grant it CREATE on the database or the schema, or set "
				+ "jobqueue.postgresql.schema to a schema it owns.";
	}

}
