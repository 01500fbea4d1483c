package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import dev.jobqueue.core.store.QueueStorage;

/**
 * A store module, as the auto-configuration (or any tool) finds it: which databases it
 * serves, what it needs on the classpath, and how it builds the queue on a DataSource.
 * Each store module registers one in
 * {@code META-INF/services/dev.jobqueue.jdbc.StoreProvider}; {@link StoreProviders} finds
 * them. A provider class must load without its database's driver on the classpath, so
 * that an application that leaves one database's driver out still starts on another.
 */
public interface StoreProvider {

	/** The database's name, for messages: {@code SQLite}. */
	String name();

	/** The Maven coordinates of the store module, for messages. */
	String module();

	/** Whether this store serves a JDBC URL ({@code jdbc:sqlite:...}). */
	boolean servesUrl(String url);

	/**
	 * Whether this store serves a database by the product name its JDBC driver reports
	 * ({@code DatabaseMetaData.getDatabaseProductName()}).
	 */
	boolean servesProduct(String productName);

	/**
	 * What the application must add for this store to work (its JDBC driver, say), as
	 * sentences that name the dependencies; {@code null} when nothing is missing.
	 * @param where what asked for this store, for the message (a URL, "the application's
	 * DataSource")
	 */
	String missingSupport(ClassLoader classLoader, String where);

	/**
	 * The database server as it names itself, for messages ({@code MariaDB 10.11.6}):
	 * {@link #name()} unless the store serves servers of several names.
	 */
	default String serverName(Connection connection) throws SQLException {
		return name();
	}

	/** The URL as it may be shown: without passwords. */
	default String describe(String url) {
		return JdbcUrls.withoutCredentials(url);
	}

	/**
	 * Checks, changing nothing, that a tool may open {@code url}: where the store keeps
	 * its database in a file it would write to on opening, that the file exists and holds
	 * the queue (or, when {@code mayCreate}, that it is no other kind of file). Server
	 * stores have nothing to check before connecting.
	 * @param tablePrefix the prefix of the queue's tables ({@code jobqueue.table-prefix})
	 * @param mayCreate whether the tool creates the queue ({@code migrate})
	 * @throws IllegalArgumentException for a URL that cannot hold a queue
	 * @throws dev.jobqueue.JobQueueException saying what is wrong and what to do
	 */
	default void checkBeforeOpening(String url, String tablePrefix, boolean mayCreate) {
	}

	/**
	 * Opens the queue's own connection pool on {@code url}; the caller closes it (it is
	 * {@link AutoCloseable}).
	 */
	DataSource openDataSource(String url, StoreSettings settings);

	/**
	 * The queue on {@code dataSource}.
	 * @param description where the data lives, for messages and the endpoint
	 * @param shared whether the DataSource is the application's, whose transactions queue
	 * writes join
	 */
	QueueStorage createStorage(DataSource dataSource, String description, boolean shared, StoreSettings settings);

}
