package dev.jobqueue.postgresql;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresTest;

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

	@RegisterExtension
	final MigrationDatabase db = new MigrationDatabase(TABLES);

	@Test
	void anEmptyDatabaseIsRefusedWithHowToMigrateAndLeftUntouched() {
		try (PostgresStorage storage = this.db.storage()) {
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(storage::verifySchema)
				.withMessageContaining("initialize-schema=never")
				.withMessageContaining("the first being version 1 ")
				.withMessageContaining(PostgresSchema.MIGRATION_LOCATION)
				.withMessageContaining("placeholder prefix = 'jq_'");
		}
		assertThat(this.db.count("SELECT count(*) FROM pg_namespace WHERE nspname = 'queue'")).isZero();
	}

	@Test
	void aSchemaMissingTheLatestMigrationNamesIt() {
		this.db.migrateTo("7");
		try (PostgresStorage storage = this.db.storage()) {
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(storage::verifySchema)
				.withMessageMatching("(?s).*\\b\\d+ migration\\(s\\) are not applied.*")
				.withMessageContaining("the first being version 8 (fewer index entries per job)");
		}
		assertThat(this.db.count("SELECT max(version::int) FROM queue.jq_jobqueue_schema_history")).isEqualTo(7);
	}

	@Test
	void aSchemaTheOperatorMigratedPassesAndTheStoreListens() {
		this.db.migrateTo(null);
		try (PostgresStorage storage = this.db.storage()) {
			storage.verifySchema();
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(storage.jobs().changeToken()).as("listening").isNotNull());
		}
	}

	@Test
	void aSchemaNewerThanThisVersionIsRefusedByVerificationAndByMigration() {
		this.db.migrateTo(null);
		this.db.execute(
				"INSERT INTO queue.jq_jobqueue_schema_history (installed_rank, version, description, type, script, "
						+ "checksum, installed_by, installed_on, execution_time, success) VALUES ((SELECT max(installed_rank) "
						+ "+ 1 FROM queue.jq_jobqueue_schema_history), '99', 'from the future', 'SQL', "
						+ "'V99__from_the_future.sql', 0, 'test', now(), 0, true)");
		try (PostgresStorage storage = this.db.storage()) {
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(storage::verifySchema)
				.withMessageContaining("schema 'queue' in " + this.db.name())
				.withMessageContaining("has schema version 99, written by a newer version of jobqueue")
				.withMessageContaining("Refusing to start")
				.withMessageContaining("jobqueue.postgresql.schema");
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(storage::initializeSchema)
				.withMessageContaining("has schema version 99");
		}
	}

}
