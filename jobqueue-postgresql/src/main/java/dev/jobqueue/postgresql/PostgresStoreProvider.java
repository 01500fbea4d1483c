package dev.jobqueue.postgresql;

import javax.sql.DataSource;

import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.jdbc.JdbcStoreProvider;
import dev.jobqueue.jdbc.StoreSettings;

/**
 * The PostgreSQL store for {@code jdbc:postgresql:} URLs and PostgreSQL DataSources. The
 * driver is the application's dependency: this provider loads without it and says what to
 * add when it is missing.
 */
public final class PostgresStoreProvider extends JdbcStoreProvider {

	public PostgresStoreProvider() {
		super("PostgreSQL", "dev.jobqueue:jobqueue-postgresql", "jdbc:postgresql:");
	}

	@Override
	public String missingSupport(ClassLoader classLoader, String where) {
		if (!isPresent(PostgresDataSources.DRIVER, classLoader)) {
			return "The job queue is configured for PostgreSQL (" + where + ") but the PostgreSQL JDBC driver is not "
					+ "on the classpath. Add the dependency org.postgresql:postgresql (Spring Boot manages its "
					+ "version), or use a jdbc:sqlite: URL.";
		}
		if (!isPresent("org.flywaydb.database.postgresql.PostgreSQLDatabaseType", classLoader)) {
			return "The job queue is configured for PostgreSQL (" + where + ") but Flyway's PostgreSQL support, which "
					+ "migrates the queue's tables, is not on the classpath. Add the dependency "
					+ "org.flywaydb:flyway-database-postgresql (Spring Boot manages its version).";
		}
		return null;
	}

	/**
	 * One connection more than the configured pool: the listener of {@code LISTEN/NOTIFY}
	 * holds one for good.
	 */
	@Override
	public DataSource openDataSource(String url, StoreSettings settings) {
		return PostgresDataSources.create(url, settings.username(), settings.password(), settings.poolSize() + 1,
				settings.connectionTimeout());
	}

	/** Other processes' enqueues and cancels, heard with LISTEN, wake this process. */
	@Override
	public QueueStorage createStorage(DataSource dataSource, String description, boolean shared,
			StoreSettings settings) {
		PostgresStorage storage = new PostgresStorage(
				new PostgresDatabase(dataSource, description, settings.callerTransactions()),
				PostgresDialect.tables(settings.schema(), settings.tablePrefix()));
		return (settings.signals() != null) ? storage.signals(settings.signals()) : storage;
	}

}
