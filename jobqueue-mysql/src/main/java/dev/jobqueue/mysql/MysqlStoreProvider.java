package dev.jobqueue.mysql;

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

	@Override
	public String missingSupport(ClassLoader classLoader, String where) {
		boolean mariadbUrl = where != null && where.contains("jdbc:mariadb:");
		boolean mysqlUrl = where != null && where.contains("jdbc:mysql:");
		if (mariadbUrl && !isPresent(MysqlDataSources.MARIADB_DRIVER, classLoader)) {
			return "The job queue is configured for MariaDB (" + where + ") but the MariaDB JDBC driver is not on the "
					+ "classpath. Add the dependency org.mariadb.jdbc:mariadb-java-client (Spring Boot manages its "
					+ "version), or use a jdbc:sqlite: URL.";
		}
		if (mysqlUrl && !isPresent(MysqlDataSources.MYSQL_DRIVER, classLoader)) {
			return "The job queue is configured for MySQL (" + where + ") but MySQL Connector/J is not on the "
					+ "classpath. Add the dependency com.mysql:mysql-connector-j (Spring Boot manages its version), "
					+ "or for MariaDB use a jdbc:mariadb: URL with org.mariadb.jdbc:mariadb-java-client.";
		}
		if (!isPresent("org.flywaydb.database.mysql.MySQLDatabaseType", classLoader)) {
			return "The job queue is configured for MySQL/MariaDB (" + where + ") but Flyway's MySQL support, which "
					+ "migrates the queue's tables, is not on the classpath. Add the dependency "
					+ "org.flywaydb:flyway-mysql (Spring Boot manages its version).";
		}
		return null;
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
