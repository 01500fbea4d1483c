package dev.jobqueue.mysql;

import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.JdbcUrls;
import dev.jobqueue.jdbc.ServerPools;

/** The queue's own connection pool on MySQL or MariaDB. */
public final class MysqlDataSources {

	static final String MARIADB_DRIVER = "org.mariadb.jdbc.Driver";

	static final String MYSQL_DRIVER = "com.mysql.cj.jdbc.Driver";

	private MysqlDataSources() {
	}

	/** Whether a URL points at MySQL or MariaDB. */
	public static boolean isMysqlUrl(String url) {
		return url != null && (url.startsWith("jdbc:mysql:") || url.startsWith("jdbc:mariadb:"));
	}

	/**
	 * The driver of a URL: MariaDB Connector/J for {@code jdbc:mariadb:}, else MySQL's.
	 */
	static String driver(String url) {
		return url.startsWith("jdbc:mariadb:") ? MARIADB_DRIVER : MYSQL_DRIVER;
	}

	/**
	 * A pool for the queue alone, its connections at READ COMMITTED. Nothing is connected
	 * yet: the first connection is opened when the schema is migrated.
	 * @throws JobQueueException when the URL's driver is not on the classpath
	 */
	public static HikariDataSource create(String url, String username, String password, int maximumPoolSize,
			Duration connectionTimeout) {
		requireDriver(url);
		HikariConfig config = ServerPools.config("jobqueue-mysql", driver(url), url, username, password,
				maximumPoolSize, connectionTimeout);
		config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
		return new HikariDataSource(config);
	}

	/**
	 * @throws JobQueueException when the URL's driver is not on the classpath
	 */
	public static void requireDriver(String url) {
		String driver = driver(url);
		try {
			Class.forName(driver, false, MysqlDataSources.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			throw new JobQueueException("jobqueue.datasource.url is " + JdbcUrls.withoutCredentials(url) + " but its "
					+ "JDBC driver (" + driver + ") is not on the classpath. Add it to the application: "
					+ artifact(url) + " (Spring Boot manages its version).", ex);
		}
	}

	/** The driver's Maven coordinates. */
	static String artifact(String url) {
		return url.startsWith("jdbc:mariadb:") ? "org.mariadb.jdbc:mariadb-java-client" : "com.mysql:mysql-connector-j";
	}

}
