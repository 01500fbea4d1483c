package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.JdbcSchema;
import dev.jobqueue.jdbc.ServerSchema;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The queue's schema on MySQL or MariaDB ({@link JdbcSchema}), in the connection's
 * database, on a server new enough, with an isolation level the queue's reads are right
 * at, in InnoDB tables. Flyway takes a named lock ({@code GET_LOCK}) while it migrates,
 * so processes starting at once migrate one after another.
 */
public final class MysqlSchema extends ServerSchema {

	public static final String MIGRATION_LOCATION = "classpath:dev/jobqueue/mysql/migration";

	/** {@code SKIP LOCKED} and {@code JSON_TABLE}: MySQL 8.0, MariaDB 10.6. */
	static final int[] MINIMUM_MYSQL = { 8, 0 };

	static final int[] MINIMUM_MARIADB = { 10, 6 };

	private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)");

	private static final Pattern RELEASE = Pattern.compile("^\\d+(\\.\\d+)*");

	private static final String NOT_INNODB = """
			SELECT table_name, engine FROM information_schema.tables
			WHERE table_schema = DATABASE() AND table_name {in_texts :tables} AND engine <> 'InnoDB'
			ORDER BY table_name
			""";

	public MysqlSchema(DataSource dataSource, Tables tables, String location) {
		super(dataSource, tables, MIGRATION_LOCATION, location, MysqlErrors.INSTANCE);
	}

	@Override
	protected void checkServer(Connection connection) throws SQLException {
		checkVersion(connection);
		checkIsolation(connection);
		checkEngines(connection);
	}

	/** Tables made by hand, or converted since, must be InnoDB as well. */
	@Override
	protected void migrateExclusively(String location, Runnable migration) {
		migration.run();
		try (Connection connection = dataSource().getConnection()) {
			checkEngines(connection);
		}
		catch (SQLException ex) {
			throw errors().translate(ex, "check the queue's tables", location());
		}
	}

	@Override
	protected String storeModule() {
		return "jobqueue-mysql";
	}

	@Override
	protected String elsewhere() {
		return "point jobqueue.datasource.url at another database, or set jobqueue.table-prefix";
	}

	private void checkVersion(Connection connection) throws SQLException {
		refuseVersion(version(connection), location());
	}

	/** The server's version as {@code SELECT VERSION()} says it. */
	static String version(Connection connection) throws SQLException {
		try (var statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT VERSION()")) {
			return rows.next() ? rows.getString(1) : "";
		}
	}

	/**
	 * The server's product and version: {@code MariaDB 10.11.6} for
	 * {@code 10.11.6-MariaDB-0+deb12u1}, {@code MySQL 8.0.36} for {@code 8.0.36}.
	 */
	static String serverName(String version) {
		Matcher number = RELEASE.matcher(version);
		String product = version.contains("MariaDB") ? "MariaDB" : "MySQL";
		return number.find() ? product + " " + number.group() : product;
	}

	/**
	 * @param version as {@code SELECT VERSION()} says it: {@code 8.0.36},
	 * {@code 10.11.6-MariaDB-0+deb12u1}
	 */
	static void refuseVersion(String version, String location) {
		boolean mariadb = version.contains("MariaDB");
		int[] minimum = mariadb ? MINIMUM_MARIADB : MINIMUM_MYSQL;
		Matcher matcher = VERSION.matcher(version);
		int major = matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
		int minor = (major > 0) ? Integer.parseInt(matcher.group(2)) : 0;
		if (major < minimum[0] || (major == minimum[0] && minor < minimum[1])) {
			String product = mariadb ? "MariaDB" : "MySQL";
			throw new JobQueueException("The queue needs " + product + " " + minimum[0] + "." + minimum[1]
					+ " or newer (for FOR UPDATE SKIP LOCKED and JSON_TABLE); " + location + " runs " + version
					+ ". Upgrade the server, or keep the queue on SQLite or PostgreSQL.");
		}
	}

	/**
	 * READ COMMITTED or REPEATABLE READ: below, a claim could read a job another claim
	 * has not committed; above, every plain read locks, and claims wait on each other.
	 */
	private void checkIsolation(Connection connection) throws SQLException {
		int isolation = connection.getTransactionIsolation();
		if (isolation == Connection.TRANSACTION_READ_UNCOMMITTED || isolation == Connection.TRANSACTION_SERIALIZABLE) {
			String level = (isolation == Connection.TRANSACTION_SERIALIZABLE) ? "SERIALIZABLE" : "READ-UNCOMMITTED";
			throw new JobQueueException("The queue's connections to " + location() + " run at " + level
					+ ", where the queue's reads are not right (READ-UNCOMMITTED reads uncommitted jobs) or claims "
					+ "block each other (SERIALIZABLE). Use READ-COMMITTED or REPEATABLE-READ: set "
					+ "transaction_isolation on the server, or the pool's transaction isolation (for a shared "
					+ "DataSource spring.datasource.hikari.transaction-isolation=TRANSACTION_READ_COMMITTED).");
		}
	}

	private void checkEngines(Connection connection) throws SQLException {
		List<String> wrong = new ArrayList<>();
		try (SqlStatement select = tables().sql(NOT_INNODB).prepare(connection);
				ResultSet rows = select.bindTexts("tables", tables().names()).executeQuery()) {
			while (rows.next()) {
				wrong.add(rows.getString(1) + " (" + rows.getString(2) + ")");
			}
		}
		if (!wrong.isEmpty()) {
			throw new JobQueueException("The queue's tables in " + location() + " must be InnoDB, for row locks and "
					+ "transactions; these are not: " + String.join(", ", wrong) + ". Convert them (ALTER TABLE ... "
					+ "ENGINE = InnoDB) or drop them and let the queue create them again.");
		}
	}

	@Override
	protected String privilegeAdvice() {
		return "Grant it the rights on the database (GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, INDEX, DROP, "
				+ "REFERENCES ON <database>.* TO <user>), or have an administrator migrate the schema and set "
				+ "jobqueue.datasource.initialize-schema=never.";
	}

}
