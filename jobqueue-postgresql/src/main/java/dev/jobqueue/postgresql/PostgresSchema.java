package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.Tables;

/**
 * Brings the queue's schema up to date with a private Flyway: its own history table and
 * migration location, in the queue's schema (created when missing and the user may).
 * Flyway takes a PostgreSQL advisory lock while it migrates, so processes starting at
 * once migrate one after another. A schema migrated by a newer version of the queue is
 * refused, not downgraded.
 */
public final class PostgresSchema {

	public static final String MIGRATION_LOCATION = "classpath:dev/jobqueue/postgresql/migration";

	/**
	 * The oldest server the queue supports: {@code hashtextextended} and identity columns
	 * need 11; 13 is tested.
	 */
	static final int MINIMUM_SERVER_VERSION = 13;

	private static final Logger logger = LoggerFactory.getLogger(PostgresSchema.class);

	private final DataSource dataSource;

	private final Tables tables;

	private final String location;

	public PostgresSchema(DataSource dataSource, Tables tables, String location) {
		this.dataSource = Objects.requireNonNull(dataSource, "'dataSource' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.location = Objects.requireNonNull(location, "'location' must not be null");
	}

	/**
	 * Checks the server, creates the schema if needed, then migrates.
	 * @throws JobQueueException naming what is wrong and what to do
	 */
	public void initialize() {
		checkServer();
		Flyway flyway = flyway(true);
		MigrationInfoService info = info(flyway);
		MigrationInfo[] future = Arrays.stream(info.all())
			.filter((migration) -> migration.getState().name().startsWith("FUTURE"))
			.toArray(MigrationInfo[]::new);
		if (future.length > 0) {
			throw new JobQueueException("The queue's schema '" + this.tables.schema() + "' in " + this.location
					+ " has version " + future[future.length - 1].getVersion() + ", written by a newer version of "
					+ "jobqueue than this one (which knows up to " + latestKnown(info) + "). Refusing to start rather "
					+ "than run old code on a newer schema: upgrade jobqueue in this application, or point it at another "
					+ "schema with jobqueue.postgresql.schema.");
		}
		int applied;
		try {
			applied = flyway.migrate().migrationsExecuted;
		}
		catch (RuntimeException ex) {
			throw failure("migrate the queue's schema '" + this.tables.schema() + "'", ex);
		}
		if (applied > 0) {
			logger.info("Queue schema '{}' of {} migrated ({} migration(s), history in table {})", this.tables.schema(),
					this.location, applied, this.tables.schemaHistory());
		}
	}

	/**
	 * Checks the server and that every migration this version knows is applied, changing
	 * nothing: for operators who migrate the schema themselves.
	 * @throws JobQueueException naming the migrations that are missing and how to apply
	 * them
	 */
	public void verify() {
		checkServer();
		MigrationInfo[] pending = info(flyway(false)).pending();
		if (pending.length > 0) {
			throw new JobQueueException("The queue's schema '" + this.tables.schema() + "' in " + this.location
					+ " is not up to date and jobqueue.datasource.initialize-schema=never: " + pending.length
					+ " migration(s) are not applied (history table " + this.tables.schema() + "."
					+ this.tables.schemaHistory() + "), the first being version " + pending[0].getVersion() + " ("
					+ pending[0].getDescription() + "). Let the queue migrate once: start it without the setting (or "
					+ "with initialize-schema=always), then set it back. Or run Flyway yourself with the "
					+ "jobqueue-postgresql jar on its classpath: locations " + MIGRATION_LOCATION + ", schemas "
					+ this.tables.schema() + ", table " + this.tables.schemaHistory() + ", placeholder prefix = '"
					+ this.tables.prefix() + "'.");
		}
	}

	/**
	 * @param createSchema whether Flyway may create the queue's schema
	 */
	private Flyway flyway(boolean createSchema) {
		return Flyway.configure(getClass().getClassLoader())
			.dataSource(this.dataSource)
			.schemas(this.tables.schema())
			.defaultSchema(this.tables.schema())
			.createSchemas(createSchema)
			.table(this.tables.schemaHistory())
			.locations(MIGRATION_LOCATION)
			.placeholders(Map.of("prefix", this.tables.prefix()))
			.baselineOnMigrate(true)
			.baselineVersion("0")
			.load();
	}

	private MigrationInfoService info(Flyway flyway) {
		try {
			return flyway.info();
		}
		catch (RuntimeException ex) {
			throw failure("read the queue's schema history", ex);
		}
	}

	private void checkServer() {
		try (Connection connection = this.dataSource.getConnection();
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

	private JobQueueException failure(String action, RuntimeException ex) {
		String state = PostgresErrors.state(ex);
		if (state.equals(PostgresErrors.INSUFFICIENT_PRIVILEGE)) {
			return new JobQueueException("Could not " + action + " in " + this.location + ": the database user lacks "
					+ "a privilege (" + rootMessage(ex) + "). Either have an administrator create the schema for it "
					+ "(CREATE SCHEMA " + this.tables.schema() + " AUTHORIZATION <user>), grant it CREATE on the "
					+ "database or the schema, or set jobqueue.postgresql.schema to a schema it owns.", ex);
		}
		if (PostgresErrors.isConnectionFailure(ex)) {
			return new JobQueueException(
					"Could not " + action + ": the PostgreSQL server at " + this.location + " cannot be reached ("
							+ rootMessage(ex) + "). Start it or fix jobqueue.datasource.url; the "
							+ "queue's schema is migrated at start-up, so the application cannot start without it.",
					ex);
		}
		return new JobQueueException("Could not " + action + " in " + this.location + ": " + rootMessage(ex), ex);
	}

	private static String rootMessage(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return root.getMessage();
	}

	private static String latestKnown(MigrationInfoService info) {
		return Arrays.stream(info.all())
			.filter((migration) -> !migration.getState().name().startsWith("FUTURE") && migration.getVersion() != null)
			.map((migration) -> migration.getVersion().getVersion())
			.reduce((first, second) -> second)
			.orElse("none");
	}

}
