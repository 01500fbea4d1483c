package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.util.List;

import javax.sql.DataSource;

import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.jdbc.JdbcStoreProvider;
import dev.jobqueue.jdbc.StoreSettings;

/**
 * The SQLite store for {@code jdbc:sqlite:} URLs and SQLite DataSources. Loads without
 * sqlite-jdbc on the classpath (an application on another database may leave it out); the
 * driver is needed only once the store is used.
 */
public final class SqliteStoreProvider extends JdbcStoreProvider {

	static final String DRIVER = "org.sqlite.JDBC";

	public SqliteStoreProvider() {
		super("SQLite", "dev.jobqueue:jobqueue-sqlite", "jdbc:sqlite:");
	}

	@Override
	protected List<Requirement> requirements(String where) {
		return List.of(new Requirement(DRIVER, "SQLite", "the SQLite JDBC driver", "org.xerial:sqlite-jdbc",
				", or set jobqueue.datasource.url to a database whose driver the application has"));
	}

	/** The file of the URL, or the URL of an in-memory database. */
	@Override
	public String describe(String url) {
		Path file = SqliteDataSources.fileOf(url);
		return (file != null) ? file.toString() : url;
	}

	@Override
	public void checkBeforeOpening(String url, String tablePrefix, boolean mayCreate) {
		SqliteFileChecks.check(url, SqliteDialect.tables(tablePrefix).schemaHistory(), mayCreate);
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
