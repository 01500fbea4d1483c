package dev.jobqueue.sqlite;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The schema of a SQLite file as {@code initialize-schema=never} finds it: a current one
 * passes, one written by a newer version of the queue is refused as migrating refuses it.
 */
class SqliteSchemaTests {

	@TempDir
	Path dir;

	@Test
	void aCurrentSchemaPassesVerification() {
		try (TestDatabase db = TestDatabase.create(this.dir.resolve("queue.db"), "jq_")) {
			assertThatNoException().isThrownBy(() -> schema(db, "jq_").verify());
		}
	}

	@Test
	void aSchemaNewerThanThisVersionIsRefusedByVerificationAndByMigration() {
		try (TestDatabase db = TestDatabase.create(this.dir.resolve("queue.db"), "jq_")) {
			db.execute("INSERT INTO jq_jobqueue_schema_history (installed_rank, version, description, type, script, "
					+ "checksum, installed_by, installed_on, execution_time, success) VALUES ((SELECT max(installed_rank) "
					+ "+ 1 FROM jq_jobqueue_schema_history), '99', 'from the future', 'SQL', 'V99__from_the_future.sql', "
					+ "0, 'test', CURRENT_TIMESTAMP, 0, 1)");
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(() -> schema(db, "jq_").verify())
				.withMessageContaining("database " + db.url())
				.withMessageContaining("has schema version 99, written by a newer version of jobqueue")
				.withMessageContaining("Refusing to start")
				.withMessageContaining("jobqueue.datasource.url");
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(() -> schema(db, "jq_").initialize())
				.withMessageContaining("has schema version 99");
		}
	}

	private static SqliteSchema schema(TestDatabase db, String prefix) {
		return new SqliteSchema(db.dataSource(), SqliteDialect.tables(prefix));
	}

}
