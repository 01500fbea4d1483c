package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.mysql.testing.MariaDbServer;
import dev.jobqueue.mysql.testing.MysqlTestDatabase;

/**
 * A database of its own for each test of a migration or of the schema (created before,
 * dropped after), with the statements those tests write by hand: a queue migrated to an
 * older version, rows put in with SQL, answers read back. Its pool reads committed rows,
 * as the queue's own pool does.
 */
final class MigrationDatabase implements BeforeEachCallback, AfterEachCallback {

	private final Tables tables;

	private String name;

	private HikariDataSource dataSource;

	MigrationDatabase(Tables tables) {
		this.tables = tables;
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		this.name = MysqlTestDatabase.createDatabase();
		this.dataSource = pool("TRANSACTION_READ_COMMITTED");
	}

	@Override
	public void afterEach(ExtensionContext context) {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
		if (this.name != null) {
			MysqlTestDatabase.dropDatabase(this.name);
		}
	}

	String name() {
		return this.name;
	}

	String url() {
		return MariaDbServer.urlOf(this.name);
	}

	HikariDataSource dataSource() {
		return this.dataSource;
	}

	/**
	 * Another pool on this database, with the transaction {@code isolation} (a
	 * {@code TRANSACTION_*} name); the caller closes it.
	 */
	HikariDataSource pool(String isolation) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url());
		config.setUsername("root");
		config.setMaximumPoolSize(2);
		config.setTransactionIsolation(isolation);
		return new HikariDataSource(config);
	}

	/** Migrates the queue's tables to {@code version}, or to the latest if null. */
	void migrateTo(String version) {
		FluentConfiguration configuration = Flyway.configure(getClass().getClassLoader())
			.dataSource(this.dataSource)
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
		return storage(this.dataSource);
	}

	/** A store on this database through {@code pool}. */
	MysqlStorage storage(DataSource pool) {
		return new MysqlStorage(new MysqlDatabase(pool, this.name), this.tables);
	}

	void execute(String sql) {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

	long count(String sql) {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(sql)) {
			rows.next();
			return rows.getLong(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

}
