package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.core.store.QueueInsights.JobSummary;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A file of schema V14 migrates to V15 (a key on a job): the jobs it held keep their rows
 * with no key, none of them has an entry in the key index, and a job enqueued with a key
 * afterwards is listed by it.
 */
class JobKeyMigrationTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	@TempDir
	Path dir;

	@ParameterizedTest
	@ValueSource(strings = { "", "jq_" })
	void oldJobsHaveNoKeyAndNoEntryInTheKeyIndex(String prefix) throws Exception {
		Path file = this.dir.resolve("old.db");
		TestDatabase.migrateFileTo(file, prefix, "14");
		long before = NOW.minusSeconds(60).toEpochMilli();
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement()) {
			statement.execute("INSERT INTO " + prefix
					+ "jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at, "
					+ "finished_at, waiting_for) VALUES "
					+ "(1, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, 0), ".formatted(before)
					+ "(2, 'mail', 'succeeded', '{}', 1, 3, 1, %1$d, %1$d, %1$d, 0)".formatted(before));
		}
		try (TestDatabase db = TestDatabase.create(file, prefix)) {
			assertThat(db.column("SELECT coalesce(job_key, 'none') FROM " + prefix + "jobs ORDER BY id"))
				.containsExactly("none", "none");
			assertThat(db.count("SELECT count(*) FROM " + prefix + "jobs INDEXED BY " + prefix
					+ "jobs_key_idx WHERE job_key IS NOT NULL"))
				.isZero();
			db.execute("UPDATE " + prefix + "jobs SET job_key = 'customer-1' WHERE id = 2");
			SqliteQueueInsights insights = new SqliteQueueInsights(db.database(), SqliteDialect.tables(prefix));
			assertThat(insights.jobs(new JobQuery(null, null, null, "customer-1", null, 10)).jobs())
				.extracting(JobSummary::id, JobSummary::key)
				.containsExactly(tuple(2L, "customer-1"));
			assertThat(db.column("PRAGMA integrity_check")).containsExactly("ok");
		}
	}

}
