package dev.jobqueue.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;

/**
 * The settings every pool of the queue's own on a database server starts from
 * (PostgreSQL, MySQL): the driver, the URL, the user if one is set, the size, how long a
 * statement waits for a connection, and no connection at start-up (the schema migration
 * opens the first, and fails with a message that says what to do). A store adds its own
 * settings. Needs HikariCP, which each store that calls it depends on.
 */
public final class ServerPools {

	private ServerPools() {
	}

	/**
	 * @param username the user, or {@code null} for the URL's
	 * @param password its password, or {@code null}
	 * @param connectionTimeout how long a statement waits for a connection (for instance
	 * while the server cannot be reached) before it fails
	 */
	public static HikariConfig config(String poolName, String driverClassName, String url, String username,
			String password, int maximumPoolSize, Duration connectionTimeout) {
		HikariConfig config = new HikariConfig();
		config.setPoolName(poolName);
		config.setDriverClassName(driverClassName);
		config.setJdbcUrl(url);
		if (username != null) {
			config.setUsername(username);
		}
		if (password != null) {
			config.setPassword(password);
		}
		config.setMaximumPoolSize(maximumPoolSize);
		config.setConnectionTimeout(connectionTimeout.toMillis());
		config.setInitializationFailTimeout(-1);
		return config;
	}

}
