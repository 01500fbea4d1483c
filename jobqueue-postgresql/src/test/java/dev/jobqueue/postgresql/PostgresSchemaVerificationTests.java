package dev.jobqueue.postgresql;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code jobqueue.datasource.initialize-schema=never} on PostgreSQL: the schema is
 * checked, never changed, and a schema the operator migrated works as a migrated one.
 */
@PostgresTest
class PostgresSchemaVerificationTests {

	private static final Tables TABLES = PostgresDialect.tables("queue", "jq_");

	private String name;

	private HikariDataSource dataSource;

	@BeforeEach
	void createDatabase() {
		this.name = PostgresTestDatabase.createDatabase();
		this.dataSource = PostgresDataSourcesForTests.pool(PostgresServer.urlOf(this.name));
	}

	@AfterEach
	void dropDatabase() {
		this.dataSource.close();
		PostgresTestDatabase.dropDatabase(this.name);
	}

	@Test
	void anEmptyDatabaseIsRefusedWithHowToMigrateAndLeftUntouched() {
		try (PostgresStorage storage = storage()) {
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(storage::verifySchema)
				.withMessageContaining("initialize-schema=never")
				.withMessageContaining("the first being version 1 ")
				.withMessageContaining(PostgresSchema.MIGRATION_LOCATION)
				.withMessageContaining("placeholder prefix = 'jq_'");
		}
		assertThat(count("SELECT count(*) FROM pg_namespace WHERE nspname = 'queue'")).isZero();
	}

	@Test
	void aSchemaMissingTheLatestMigrationNamesIt() {
		migrateTo("8");
		try (PostgresStorage storage = storage()) {
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(storage::verifySchema)
				.withMessageContaining("1 migration(s) are not applied")
				.withMessageContaining("the first being version 9 (outcome minutes)");
		}
		assertThat(count("SELECT max(version::int) FROM queue.jq_jobqueue_schema_history")).isEqualTo(8);
	}

	@Test
	void aSchemaTheOperatorMigratedPassesAndTheStoreListens() {
		migrateTo(null);
		try (PostgresStorage storage = storage()) {
			storage.verifySchema();
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(storage.jobs().changeToken()).as("listening").isNotNull());
		}
	}

	@Test
	void aSchemaNewerThanThisVersionIsRefusedByVerificationAndByMigration() {
		migrateTo(null);
		execute("INSERT INTO queue.jq_jobqueue_schema_history (installed_rank, version, description, type, script, "
				+ "checksum, installed_by, installed_on, execution_time, success) VALUES ((SELECT max(installed_rank) "
				+ "+ 1 FROM queue.jq_jobqueue_schema_history), '99', 'from the future', 'SQL', "
				+ "'V99__from_the_future.sql', 0, 'test', now(), 0, true)");
		try (PostgresStorage storage = storage()) {
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(storage::verifySchema)
				.withMessageContaining("schema 'queue' in " + this.name)
				.withMessageContaining("has schema version 99, written by a newer version of jobqueue")
				.withMessageContaining("Refusing to start")
				.withMessageContaining("jobqueue.postgresql.schema");
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(storage::initializeSchema)
				.withMessageContaining("has schema version 99");
		}
	}

	private PostgresStorage storage() {
		return new PostgresStorage(new PostgresDatabase(this.dataSource, this.name), TABLES);
	}

	/** Migrates as an operator would, with Flyway and the store's scripts. */
	private void migrateTo(String version) {
		PostgresTestDatabase.migrateTo(this.dataSource, TABLES, version);
	}

	private void execute(String sql) {
		try (var connection = this.dataSource.getConnection(); var statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

	private long count(String sql) {
		try (var connection = this.dataSource.getConnection();
				var statement = connection.createStatement();
				var rows = statement.executeQuery(sql)) {
			rows.next();
			return rows.getLong(1);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

}
