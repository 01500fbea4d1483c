package dev.jobqueue.sqlite;

import java.nio.file.Path;

import javax.sql.DataSource;

import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.jdbc.StoreProvider;
import dev.jobqueue.jdbc.StoreSettings;

/**
 * The SQLite store for {@code jdbc:sqlite:} URLs and SQLite DataSources. Loads without
 * sqlite-jdbc on the classpath (an application on another database may leave it out); the
 * driver is needed only once the store is used.
 */
public final class SqliteStoreProvider implements StoreProvider {

	static final String DRIVER = "org.sqlite.JDBC";

	@Override
	public String name() {
		return "SQLite";
	}

	@Override
	public String module() {
		return "dev.jobqueue:jobqueue-sqlite";
	}

	@Override
	public boolean servesUrl(String url) {
		return url.startsWith("jdbc:sqlite:");
	}

	@Override
	public boolean servesProduct(String productName) {
		return "SQLite".equalsIgnoreCase(productName);
	}

	@Override
	public String missingSupport(ClassLoader classLoader, String where) {
		try {
			Class.forName(DRIVER, false, classLoader);
			return null;
		}
		catch (ClassNotFoundException ex) {
			return "The job queue is configured for SQLite (" + where + ") but the SQLite JDBC driver is not on the "
					+ "classpath. Add the dependency org.xerial:sqlite-jdbc (Spring Boot manages its version), or set "
					+ "jobqueue.datasource.url to a database whose driver the application has.";
		}
	}

	/** The file of the URL, or the URL of an in-memory database. */
	@Override
	public String describe(String url) {
		Path file = SqliteDataSources.fileOf(url);
		return (file != null) ? file.toString() : url;
	}

	@Override
	public DataSource openDataSource(String url, StoreSettings settings) {
		return SqliteDataSources.create(url, settings.busyTimeout(), settings.synchronous(), settings.poolSize());
	}

	@Override
	public QueueStorage createStorage(DataSource dataSource, String description, boolean shared,
			StoreSettings settings) {
		SqliteDatabase database = new SqliteDatabase(dataSource, description, settings.lockWait(),
				settings.callerTransactions());
		return new SqliteStorage(database, SqliteDialect.tables(settings.tablePrefix()), shared, settings.visibility());
	}

}
