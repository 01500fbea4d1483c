package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.jdbc.JdbcStoreProvider;
import dev.jobqueue.jdbc.StoreSettings;

/**
 * The MySQL and MariaDB store for {@code jdbc:mysql:} and {@code jdbc:mariadb:} URLs and
 * DataSources of either. The driver is the application's dependency: this provider loads
 * without it and says what to add when it is missing.
 */
public final class MysqlStoreProvider extends JdbcStoreProvider {

	public MysqlStoreProvider() {
		super("MySQL", "dev.jobqueue:jobqueue-mysql", List.of("jdbc:mysql:", "jdbc:mariadb:"),
				List.of("MySQL", "MariaDB"));
	}

	/** The driver of the URL's kind, then Flyway's MySQL support. */
	@Override
	protected List<Requirement> requirements(String where) {
		List<Requirement> needed = new ArrayList<>();
		if (where != null && where.contains("jdbc:mariadb:")) {
			needed.add(new Requirement(MysqlDataSources.MARIADB_DRIVER, "MariaDB", "the MariaDB JDBC driver",
					"org.mariadb.jdbc:mariadb-java-client", ", or use a jdbc:sqlite: URL"));
		}
		if (where != null && where.contains("jdbc:mysql:")) {
			needed.add(new Requirement(MysqlDataSources.MYSQL_DRIVER, "MySQL", "MySQL Connector/J",
					"com.mysql:mysql-connector-j",
					", or for MariaDB use a jdbc:mariadb: URL with org.mariadb.jdbc:mariadb-java-client"));
		}
		needed.add(Requirement.flyway("org.flywaydb.database.mysql.MySQLDatabaseType", "MySQL/MariaDB", "MySQL",
				"org.flywaydb:flyway-mysql"));
		return needed;
	}

	/** MariaDB or MySQL, as the server's version says: both speak MySQL's protocol. */
	@Override
	public String serverName(Connection connection) throws SQLException {
		return MysqlSchema.serverName(MysqlSchema.version(connection));
	}

	@Override
	public DataSource openDataSource(String url, StoreSettings settings) {
		return MysqlDataSources.create(url, settings.username(), settings.password(), settings.poolSize(),
				settings.connectionTimeout());
	}

	@Override
	public QueueStorage createStorage(DataSource dataSource, String description, boolean shared,
			StoreSettings settings) {
		MysqlStorage storage = new MysqlStorage(
				new MysqlDatabase(dataSource, description, settings.callerTransactions()),
				MysqlDialect.tables(settings.tablePrefix()));
		return (settings.signals() != null) ? storage.signals(settings.signals()) : storage;
	}

}
