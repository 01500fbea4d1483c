package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

import javax.sql.DataSource;

import dev.jobqueue.JobQueueException;

/**
 * The queue's schema on a database server that many processes share (PostgreSQL, MySQL):
 * the server is checked on one connection before Flyway runs (its version, its settings),
 * and a failure of Flyway reads as what to do about it (a privilege the user lacks, a
 * server that cannot be reached), in the words of the server's {@link ServerErrors}.
 */
public abstract class ServerSchema extends JdbcSchema {

	private final String location;

	private final ServerErrors errors;

	/**
	 * @param location where the database is, for messages: a URL without credentials
	 * @param errors what the server's failures mean
	 */
	protected ServerSchema(DataSource dataSource, Tables tables, String migrationLocation, String location,
			ServerErrors errors) {
		super(dataSource, tables, migrationLocation);
		this.location = Objects.requireNonNull(location, "'location' must not be null");
		this.errors = Objects.requireNonNull(errors, "'errors' must not be null");
	}

	protected final String location() {
		return this.location;
	}

	protected final ServerErrors errors() {
		return this.errors;
	}

	@Override
	protected final String checkConnection() {
		try (Connection connection = dataSource().getConnection()) {
			checkServer(connection);
		}
		catch (SQLException ex) {
			throw this.errors.translate(ex, "open the queue database", this.location);
		}
		return this.location;
	}

	/**
	 * Checks what the store needs of the server on {@code connection}, before anything
	 * else.
	 * @throws JobQueueException naming what is wrong and what to do
	 */
	protected abstract void checkServer(Connection connection) throws SQLException;

	/**
	 * What to do when the user lacks a privilege the migration needs: the sentences after
	 * "the database user lacks a privilege (...)".
	 */
	protected abstract String privilegeAdvice();

	@Override
	protected final JobQueueException failure(String action, RuntimeException ex) {
		String message = SqlErrors.rootMessage(ex);
		if (this.errors.lacksPrivilege(ex)) {
			return new JobQueueException("Could not " + action + " in " + this.location + ": the database user lacks "
					+ "a privilege (" + message + "). " + privilegeAdvice(), ex);
		}
		if (this.errors.isConnectionFailure(ex)) {
			return new JobQueueException("Could not " + action + ": the " + this.errors.serverName() + " server at "
					+ this.location + " cannot be reached (" + message + "). Start it or fix "
					+ "jobqueue.datasource.url; the queue's schema is migrated at start-up, so the application cannot "
					+ "start without it.", ex);
		}
		return new JobQueueException("Could not " + action + " in " + this.location + ": " + message, ex);
	}

}
