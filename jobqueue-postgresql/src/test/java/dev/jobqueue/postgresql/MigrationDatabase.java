package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

/**
 * A database of its own for each test of a migration or of the schema's verification
 * (created before, dropped after), with the statements those tests write by hand: a queue
 * migrated to an older version, rows put in with SQL, answers read back.
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
		this.name = PostgresTestDatabase.createDatabase();
		this.dataSource = PostgresDataSourcesForTests.pool(PostgresServer.urlOf(this.name));
	}

	@Override
	public void afterEach(ExtensionContext context) {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
		if (this.name != null) {
			PostgresTestDatabase.dropDatabase(this.name);
		}
	}

	String name() {
		return this.name;
	}

	HikariDataSource dataSource() {
		return this.dataSource;
	}

	/** Migrates the queue's tables to {@code version}, or to the latest if null. */
	void migrateTo(String version) {
		PostgresTestDatabase.migrateTo(this.dataSource, this.tables, version);
	}

	/** A store on this database and the tables, as an application opens it. */
	PostgresStorage storage() {
		return new PostgresStorage(new PostgresDatabase(this.dataSource, this.name), this.tables);
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

	/** The first column of the first row, as text. */
	String text(String sql) {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(sql)) {
			rows.next();
			return rows.getString(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

	long count(String sql) {
		return Long.parseLong(text(sql));
	}

}
