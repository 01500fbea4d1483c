package dev.jobqueue.postgresql;

import java.util.List;

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
	protected List<Requirement> requirements(String where) {
		return List.of(
				new Requirement(PostgresDataSources.DRIVER, "PostgreSQL", "the PostgreSQL JDBC driver",
						"org.postgresql:postgresql", ", or use a jdbc:sqlite: URL"),
				Requirement.flyway("org.flywaydb.database.postgresql.PostgreSQLDatabaseType", "PostgreSQL",
						"PostgreSQL", "org.flywaydb:flyway-database-postgresql"));
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
