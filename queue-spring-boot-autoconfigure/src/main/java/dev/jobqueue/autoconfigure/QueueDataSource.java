package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.util.ClassUtils;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.postgresql.PostgresDataSources;
import dev.jobqueue.sqlite.SqliteDataSources;

/**
 * The DataSource the queue uses, and the store it means (SQLite or PostgreSQL), chosen
 * once at start-up (see {@link #choose}). Deliberately not a {@link DataSource} bean, so
 * the application's own DataSource auto-configuration, and every injection point of a
 * {@code DataSource}, is unaffected.
 */
public final class QueueDataSource implements DisposableBean {

	static final String DEFAULT_URL = "jdbc:sqlite:jobqueue.db";

	private static final Logger logger = LoggerFactory.getLogger(QueueDataSource.class);

	/** The stores the queue can keep its data in. */
	public enum Store {

		SQLITE, POSTGRESQL

	}

	private final DataSource dataSource;

	private final Store store;

	private final boolean shared;

	private final String description;

	private QueueDataSource(DataSource dataSource, Store store, boolean shared, String description) {
		this.dataSource = dataSource;
		this.store = store;
		this.shared = shared;
		this.description = description;
	}

	/** Uses the application's SQLite DataSource as it is. */
	public static QueueDataSource shared(DataSource dataSource) {
		return new QueueDataSource(dataSource, Store.SQLITE, true, "the application's DataSource");
	}

	/** Uses the application's PostgreSQL DataSource as it is. */
	public static QueueDataSource sharedPostgresql(DataSource dataSource) {
		return new QueueDataSource(dataSource, Store.POSTGRESQL, true, "the application's PostgreSQL DataSource");
	}

	/**
	 * Opens the queue's own pool: on PostgreSQL for a {@code jdbc:postgresql:} URL, else
	 * on a SQLite file.
	 */
	public static QueueDataSource own(String url, QueueProperties.Datasource properties) {
		if (PostgresDataSources.isPostgresUrl(url)) {
			return ownPostgresql(url, properties, QueueDataSource.class.getClassLoader());
		}
		Path file = SqliteDataSources.fileOf(url);
		DataSource dataSource = SqliteDataSources.create(url, properties.getBusyTimeout(), properties.getSynchronous(),
				properties.getPoolSize());
		return new QueueDataSource(dataSource, Store.SQLITE, false, (file != null) ? file.toString() : url);
	}

	private static QueueDataSource ownPostgresql(String url, QueueProperties.Datasource properties,
			ClassLoader classLoader) {
		requirePostgresqlSupport(url, classLoader);
		// One connection more than the configured pool: the listener of LISTEN/NOTIFY
		// holds one for good.
		HikariDataSource dataSource = PostgresDataSources.create(url, properties.getUsername(),
				properties.getPassword(), properties.getPoolSize() + 1, properties.getConnectionTimeout());
		return new QueueDataSource(dataSource, Store.POSTGRESQL, false, PostgresDataSources.withoutCredentials(url));
	}

	/**
	 * @throws JobQueueException naming the dependency to add when the PostgreSQL driver
	 * or Flyway's PostgreSQL support is missing
	 */
	static void requirePostgresqlSupport(String where, ClassLoader classLoader) {
		if (!ClassUtils.isPresent("org.postgresql.Driver", classLoader)) {
			throw new JobQueueException("The job queue is configured for PostgreSQL (" + where + ") but the PostgreSQL "
					+ "JDBC driver is not on the classpath. Add the dependency org.postgresql:postgresql (Spring Boot "
					+ "manages its version), or use a jdbc:sqlite: URL.");
		}
		if (!ClassUtils.isPresent("org.flywaydb.database.postgresql.PostgreSQLDatabaseType", classLoader)) {
			throw new JobQueueException("The job queue is configured for PostgreSQL (" + where + ") but Flyway's "
					+ "PostgreSQL support, which migrates the queue's tables, is not on the classpath. Add the dependency "
					+ "org.flywaydb:flyway-database-postgresql (Spring Boot manages its version).");
		}
	}

	/**
	 * Chooses the queue's DataSource: {@code jobqueue.datasource.url}; else the
	 * DataSource marked {@link JobQueueDataSource @JobQueueDataSource}; else the
	 * application's single (or primary) DataSource if it is SQLite or PostgreSQL; else
	 * the queue's own {@code jobqueue.db}.
	 * @param qualified the DataSource marked {@code @JobQueueDataSource}, if any
	 * @param application the application's single or primary DataSource, if any
	 * @param candidates the names of all DataSource beans, for the message when the
	 * choice is ambiguous
	 * @param classLoader where the PostgreSQL driver and Flyway's PostgreSQL support are
	 * looked for
	 * @throws JobQueueException when several DataSources exist and none is chosen, the
	 * chosen one is neither SQLite nor PostgreSQL, or PostgreSQL support is missing from
	 * the classpath
	 */
	static QueueDataSource choose(QueueProperties.Datasource properties, DataSource qualified, DataSource application,
			List<String> candidates, ClassLoader classLoader) {
		if (properties.getUrl() != null && !properties.getUrl().isBlank()) {
			if (PostgresDataSources.isPostgresUrl(properties.getUrl())) {
				return ownPostgresql(properties.getUrl(), properties, classLoader);
			}
			return own(properties.getUrl(), properties);
		}
		if (qualified != null) {
			if (isPostgresql(qualified)) {
				requirePostgresqlSupport("the @JobQueueDataSource DataSource", classLoader);
				return new QueueDataSource(qualified, Store.POSTGRESQL, true, "the @JobQueueDataSource DataSource");
			}
			if (!SqliteDataSources.isSqlite(qualified)) {
				throw new JobQueueException("The DataSource marked @JobQueueDataSource is " + productName(qualified)
						+ ", but the job queue supports only SQLite and PostgreSQL. Mark a "
						+ "SQLite or PostgreSQL DataSource instead, or remove the annotation and set "
						+ "jobqueue.datasource.url to give the queue its own database.");
			}
			return new QueueDataSource(qualified, Store.SQLITE, true, "the @JobQueueDataSource DataSource");
		}
		if (application != null) {
			if (isPostgresql(application)) {
				requirePostgresqlSupport("the application's DataSource is PostgreSQL", classLoader);
				return sharedPostgresql(application);
			}
			if (SqliteDataSources.isSqlite(application)) {
				return shared(application);
			}
			logger.info(
					"The application's DataSource is {}, neither SQLite nor PostgreSQL; the job queue uses its own "
							+ "file {} (set jobqueue.datasource.url to choose another)",
					productName(application), DEFAULT_URL);
			return own(DEFAULT_URL, properties);
		}
		if (candidates.size() > 1) {
			throw new JobQueueException("The application has " + candidates.size() + " DataSource beans " + candidates
					+ " and none is primary, so the job queue cannot tell which to use. Mark the one for the queue "
					+ "with @JobQueueDataSource (it must be SQLite, and queue writes then join its transactions), "
					+ "or set jobqueue.datasource.url=jdbc:sqlite:<path> to give the queue its own file.");
		}
		return own(DEFAULT_URL, properties);
	}

	/**
	 * Whether a DataSource is PostgreSQL: by the URL of a Hikari pool (so a server that
	 * is down at start-up still counts, and start-up fails on the migration with a
	 * message that says so), else by asking the database.
	 */
	static boolean isPostgresql(DataSource dataSource) {
		if (dataSource instanceof HikariDataSource hikari && hikari.getJdbcUrl() != null) {
			return PostgresDataSources.isPostgresUrl(hikari.getJdbcUrl());
		}
		try (Connection connection = dataSource.getConnection()) {
			return "PostgreSQL".equalsIgnoreCase(connection.getMetaData().getDatabaseProductName());
		}
		catch (SQLException ex) {
			return false;
		}
	}

	private static String productName(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			return connection.getMetaData().getDatabaseProductName();
		}
		catch (SQLException ex) {
			return "a database that could not be reached (" + ex.getMessage() + ")";
		}
	}

	public DataSource dataSource() {
		return this.dataSource;
	}

	/** The store this DataSource is for. */
	public Store store() {
		return this.store;
	}

	/**
	 * Whether this is the application's DataSource, so enqueue joins its transactions.
	 */
	public boolean isShared() {
		return this.shared;
	}

	public String description() {
		return this.description;
	}

	@Override
	public void destroy() throws Exception {
		if (!this.shared && this.dataSource instanceof AutoCloseable closeable) {
			closeable.close();
		}
	}

}
