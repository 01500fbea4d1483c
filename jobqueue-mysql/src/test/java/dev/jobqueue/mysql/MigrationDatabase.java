package dev.jobqueue.mysql;

import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.mysql.testing.MariaDbServer;
import dev.jobqueue.mysql.testing.MysqlTestDatabase;
import dev.jobqueue.testing.DatabasePerTest;

/**
 * A database of its own for each test of a migration or of the schema (created before,
 * dropped after), with the statements those tests write by hand: a queue migrated to an
 * older version, rows put in with SQL, answers read back. Its pool reads committed rows,
 * as the queue's own pool does.
 */
final class MigrationDatabase extends DatabasePerTest<HikariDataSource> {

	private final Tables tables;

	MigrationDatabase(Tables tables) {
		this.tables = tables;
	}

	@Override
	protected String createDatabase() {
		return MysqlTestDatabase.createDatabase();
	}

	@Override
	protected HikariDataSource open(String name) {
		return pool(MariaDbServer.urlOf(name), "TRANSACTION_READ_COMMITTED");
	}

	@Override
	protected void dropDatabase(String name) {
		MysqlTestDatabase.dropDatabase(name);
	}

	String url() {
		return MariaDbServer.urlOf(name());
	}

	/**
	 * Another pool on this database, with the transaction {@code isolation} (a
	 * {@code TRANSACTION_*} name); the caller closes it.
	 */
	HikariDataSource pool(String isolation) {
		return pool(url(), isolation);
	}

	private static HikariDataSource pool(String url, String isolation) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername("root");
		config.setMaximumPoolSize(2);
		config.setTransactionIsolation(isolation);
		return new HikariDataSource(config);
	}

	/** Migrates the queue's tables to {@code version}, or to the latest if null. */
	void migrateTo(String version) {
		FluentConfiguration configuration = Flyway.configure(getClass().getClassLoader())
			.dataSource(dataSource())
			.table(this.tables.schemaHistory())
			.locations(MysqlSchema.MIGRATION_LOCATION)
			.placeholders(Map.of("prefix", this.tables.prefix()));
		if (version != null) {
			configuration.target(version);
		}
		configuration.load().migrate();
	}

	/** A store on this database and the tables, as an application opens it. */
	MysqlStorage storage() {
		return storage(dataSource());
	}

	/** A store on this database through {@code pool}. */
	MysqlStorage storage(DataSource pool) {
		return new MysqlStorage(new MysqlDatabase(pool, name()), this.tables);
	}

}
