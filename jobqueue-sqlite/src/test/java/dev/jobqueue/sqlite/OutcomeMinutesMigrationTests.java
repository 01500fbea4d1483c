package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file of schema V12 with ended runs migrates to V13 (runs ended per minute): the
 * rollup is filled from the attempts, counted as the chart read them from the attempts (a
 * failed run is a failure for good when its job failed with that run, else retried;
 * running, snoozed, handed-back and cancelled runs are not counted), the index of
 * attempts by outcome goes, and runs ended after the upgrade add to the rollup.
 */
class OutcomeMinutesMigrationTests {

	private static final Instant MINUTE_A = Instant.parse("2030-01-01T00:00:00Z");

	private static final Instant MINUTE_B = MINUTE_A.plusSeconds(60);

	@TempDir
	Path dir;

	@ParameterizedTest
	@ValueSource(strings = { "", "jq_" })
	void aFileOfSchemaTwelveShowsTheRunsItKeptPerMinute(String prefix) throws Exception {
		Path file = this.dir.resolve("old.db");
		TestDatabase.migrateFileTo(file, prefix, "12");
		long a = MINUTE_A.plusSeconds(5).toEpochMilli();
		long b = MINUTE_B.plusSeconds(59).toEpochMilli();
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement()) {
			statement.execute("INSERT INTO " + prefix
					+ "jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at, started_at, "
					+ "finished_at, worker_id, lease_until, waiting_for) VALUES "
					+ "(1, 'old', 'succeeded', '{}', 1, 3, 1, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0), ".formatted(a)
					+ "(2, 'old', 'failed', '{}', 3, 3, 3, %1$d, %1$d, %1$d, %2$d, 'w', NULL, 0), ".formatted(a, b)
					+ "(3, 'old', 'pending', '{}', 1, 3, 1, %1$d, %1$d, NULL, NULL, NULL, NULL, 0), ".formatted(b)
					+ "(4, 'old', 'running', '{}', 1, 3, 1, %1$d, %1$d, %1$d, NULL, 'w', %2$d, 0), ".formatted(a,
							MINUTE_B.plusSeconds(3600).toEpochMilli())
					+ "(5, 'old', 'cancelled', '{}', 0, 3, 2, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0)".formatted(a));
			statement.execute("INSERT INTO " + prefix + "job_attempts (job_id, run, attempt, worker_id, started_at, "
					+ "finished_at, outcome) VALUES " + "(1, 1, 1, 'w', %1$d, %1$d, 'SUCCEEDED'), ".formatted(a)
					+ "(2, 1, 1, 'w', %1$d, %1$d, 'FAILED'), (2, 2, 2, 'w', %1$d, %1$d, 'LEASE_EXPIRED'), ".formatted(a)
					+ "(2, 3, 3, 'w', %1$d, %1$d, 'FAILED'), (3, 1, 1, 'w', %1$d, %1$d, 'FAILED'), ".formatted(b)
					+ "(4, 1, 1, 'w', %1$d, NULL, NULL), ".formatted(a)
					+ "(5, 1, 0, 'w', %1$d, %1$d, 'SNOOZED'), (5, 2, 0, 'w', %1$d, %1$d, 'CANCELLED')".formatted(a));
		}
		try (TestDatabase db = TestDatabase.create(file, prefix)) {
			assertThat(outcomes(db)).containsExactly(List.of(1L, 0L, 2L), List.of(0L, 1L, 1L));
			assertThat(db.count("SELECT count(*) FROM " + prefix + "job_outcome_minutes")).isEqualTo(2);
			assertThat(db.column("SELECT name FROM sqlite_master WHERE name = ?", prefix + "job_attempts_outcome_idx"))
				.as("the chart was the outcome index's only reader")
				.isEmpty();

			Instant now = MINUTE_B.plusSeconds(59).plusMillis(500);
			List<ClaimedJob> claimed = db.store()
				.claim(new ClaimRequest("new", 1, Set.of("old"), Map.of(), Set.of(), now.plusSeconds(60)), now);
			assertThat(claimed).singleElement().satisfies((job) -> assertThat(job.id()).isEqualTo(3));
			assertThat(db.store().complete(List.of(Completion.succeeded(claimed.get(0), null)), "new", now))
				.containsExactly(true);
			assertThat(outcomes(db)).containsExactly(List.of(1L, 0L, 2L), List.of(1L, 1L, 1L));
			assertThat(db.column("PRAGMA integrity_check")).containsExactly("ok");
		}
	}

	/** Succeeded, failed for good and retried runs in minutes A and B. */
	private static List<List<Long>> outcomes(TestDatabase db) {
		return db.insights()
			.outcomes(MINUTE_A, MINUTE_B.plusSeconds(60), Duration.ofMinutes(1))
			.stream()
			.map((slot) -> List.of(slot.succeeded(), slot.failed(), slot.retried()))
			.toList();
	}

}
