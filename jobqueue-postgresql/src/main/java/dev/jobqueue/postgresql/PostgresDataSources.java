package dev.jobqueue.postgresql;

import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.JdbcUrls;
import dev.jobqueue.jdbc.ServerPools;

/** The queue's own connection pool on PostgreSQL, and URLs safe to show. */
public final class PostgresDataSources {

	static final String DRIVER = "org.postgresql.Driver";

	private PostgresDataSources() {
	}

	/** Whether a URL points at PostgreSQL. */
	public static boolean isPostgresUrl(String url) {
		return url != null && url.startsWith("jdbc:postgresql:");
	}

	/** The URL without passwords, for messages, logs and the endpoint. */
	public static String withoutCredentials(String url) {
		return JdbcUrls.withoutCredentials(url);
	}

	/**
	 * A pool for the queue alone. One connection more than the workers need stays open
	 * for notifications. Nothing is connected yet: the first connection is opened when
	 * the schema is migrated.
	 * @throws JobQueueException when the PostgreSQL driver is not on the classpath
	 */
	public static HikariDataSource create(String url, String username, String password, int maximumPoolSize) {
		return create(url, username, password, maximumPoolSize, Duration.ofSeconds(30));
	}

	/**
	 * A pool for the queue alone, whose statements wait at most {@code connectionTimeout}
	 * for a connection (for instance while the server cannot be reached) before they
	 * fail.
	 * @throws JobQueueException when the PostgreSQL driver is not on the classpath
	 */
	public static HikariDataSource create(String url, String username, String password, int maximumPoolSize,
			Duration connectionTimeout) {
		requireDriver(url);
		HikariConfig config = ServerPools.config("jobqueue-postgresql", DRIVER, url, username, password,
				maximumPoolSize, connectionTimeout);
		config.addDataSourceProperty("ApplicationName", "jobqueue");
		// Statements the queue runs every round are parsed and planned once per
		// connection.
		config.addDataSourceProperty("prepareThreshold", "1");
		return new HikariDataSource(config);
	}

	/**
	 * @throws JobQueueException when the PostgreSQL driver is not on the classpath
	 */
	public static void requireDriver(String url) {
		try {
			Class.forName(DRIVER, false, PostgresDataSources.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			throw new JobQueueException("jobqueue.datasource.url is " + withoutCredentials(url) + " but the PostgreSQL "
					+ "JDBC driver is not on the classpath. Add it to the application, e.g. the Maven dependency "
					+ "org.postgresql:postgresql (Spring Boot manages its version), or use a jdbc:sqlite: URL.", ex);
		}
	}

}
