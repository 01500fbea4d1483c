package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A file written before chains (schema V8) keeps its jobs and takes waiting jobs after
 * V9, whose status check is edited in place (see {@code V9__Chains}).
 */
class ChainsMigrationTests {

	@TempDir
	Path dir;

	@ParameterizedTest
	@ValueSource(strings = { "", "jq_" })
	void aFileOfSchemaEightKeepsItsJobsAndTakesWaitingJobsAfterMigrating(String prefix) throws Exception {
		Path file = this.dir.resolve("old.db");
		TestDatabase.migrateFileTo(file, prefix, "8");
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement()) {
			statement
				.execute("INSERT INTO " + prefix + "jobs (type, status, payload, max_attempts, run_at, created_at) "
						+ "VALUES ('old', 'succeeded', '1', 3, 0, 0)");
			assertThatExceptionOfType(java.sql.SQLException.class)
				.isThrownBy(() -> statement.execute("INSERT INTO " + prefix + "jobs (type, status, payload, "
						+ "max_attempts, run_at, created_at) VALUES ('old', 'waiting', '1', 3, 0, 0)"));
		}
		MutableClock clock = MutableClock.startingAt("2026-06-01T00:00:00Z");
		try (TestDatabase db = TestDatabase.create(file, prefix)) {
			assertThat(db.admin().find(1).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
			DefaultJobQueue queue = new DefaultJobQueue(db.store(), db.admin(), WorkerHarness.CODEC,
					new HandlerRegistry(), clock, new EnqueueLimits(3, 1024), null);
			long first = queue.enqueue("new", 1);
			long waiting = queue.enqueue(JobRequest.of("new", 2).after(1, first));
			assertThat(queue.find(waiting).orElseThrow().status()).isEqualTo(JobStatus.WAITING);
			assertThat(queue.find(waiting).orElseThrow().unfinishedDependencies()).isEqualTo(1);
			assertThat(db.column("PRAGMA integrity_check")).containsExactly("ok");
			assertThatExceptionOfType(RuntimeException.class)
				.isThrownBy(() -> db.execute("UPDATE " + prefix + "jobs SET status = 'bogus' WHERE id = 1"));
		}
	}

}
