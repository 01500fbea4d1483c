package dev.jobqueue.postgresql;

import com.zaxxer.hikari.HikariDataSource;

import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;
import dev.jobqueue.testing.DatabasePerTest;

/**
 * A database of its own for each test of a migration or of the schema's verification
 * (created before, dropped after), with the statements those tests write by hand: a queue
 * migrated to an older version, rows put in with SQL, answers read back.
 */
final class MigrationDatabase extends DatabasePerTest<HikariDataSource> {

	private final Tables tables;

	MigrationDatabase(Tables tables) {
		this.tables = tables;
	}

	@Override
	protected String createDatabase() {
		return PostgresTestDatabase.createDatabase();
	}

	@Override
	protected HikariDataSource open(String name) {
		return PostgresDataSourcesForTests.pool(PostgresServer.urlOf(name));
	}

	@Override
	protected void dropDatabase(String name) {
		PostgresTestDatabase.dropDatabase(name);
	}

	/** Migrates the queue's tables to {@code version}, or to the latest if null. */
	void migrateTo(String version) {
		PostgresTestDatabase.migrateTo(dataSource(), this.tables, version);
	}

	/** A store on this database and the tables, as an application opens it. */
	PostgresStorage storage() {
		return new PostgresStorage(new PostgresDatabase(dataSource(), name()), this.tables);
	}

}
