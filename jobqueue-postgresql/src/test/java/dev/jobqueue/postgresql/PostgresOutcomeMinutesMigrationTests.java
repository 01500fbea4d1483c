package dev.jobqueue.postgresql;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.postgresql.testing.PostgresTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue of schema V8 with ended runs migrates to V9 (runs ended per minute): the rollup
 * is filled from the attempts, counted as the chart read them (a failed run is a failure
 * for good when its job failed with that run, else retried; running, snoozed and
 * cancelled runs are not counted), the index of attempts by outcome goes, and runs ended
 * after the upgrade add to the rollup. In a schema of its own with a table prefix.
 */
@PostgresTest
class PostgresOutcomeMinutesMigrationTests {

	private static final Instant MINUTE_A = Instant.parse("2030-01-01T00:00:00Z");

	private static final Instant MINUTE_B = MINUTE_A.plusSeconds(60);

	private static final Tables TABLES = PostgresDialect.tables("queue", "jq_");

	@RegisterExtension
	final MigrationDatabase db = new MigrationDatabase(TABLES);

	@Test
	void aV8QueueShowsTheRunsItKeptPerMinute() throws SQLException {
		this.db.migrateTo("8");
		this.db.execute("""
				INSERT INTO queue.jq_jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at,
				                           started_at, finished_at, worker_id, lease_until, waiting_for)
				OVERRIDING SYSTEM VALUE VALUES
				(1, 'old', 'succeeded', '{}', 1, 3, 1, '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z',
				 '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z', 'w', NULL, 0),
				(2, 'old', 'failed', '{}', 3, 3, 3, '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z',
				 '2030-01-01T00:00:05Z', '2030-01-01T00:01:59.999Z', 'w', NULL, 0),
				(3, 'old', 'pending', '{}', 1, 3, 1, '2030-01-01T00:01:59Z', '2030-01-01T00:00:05Z', NULL, NULL, NULL,
				 NULL, 0),
				(4, 'old', 'running', '{}', 1, 3, 1, '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z',
				 '2030-01-01T00:00:05Z', NULL, 'w', '2030-01-01T02:00:00Z', 0),
				(5, 'old', 'cancelled', '{}', 0, 3, 2, '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z',
				 '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z', 'w', NULL, 0)
				""");
		this.db.execute("SELECT setval(pg_get_serial_sequence('queue.jq_jobs', 'id'), 5)");
		this.db.execute("""
				INSERT INTO queue.jq_job_attempts (job_id, run, attempt, worker_id, started_at, finished_at, outcome)
				VALUES (1, 1, 1, 'w', '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z', 'SUCCEEDED'),
				       (2, 1, 1, 'w', '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z', 'FAILED'),
				       (2, 2, 2, 'w', '2030-01-01T00:00:05Z', '2030-01-01T00:00:59.999Z', 'LEASE_EXPIRED'),
				       (2, 3, 3, 'w', '2030-01-01T00:01:00Z', '2030-01-01T00:01:59.999Z', 'FAILED'),
				       (3, 1, 1, 'w', '2030-01-01T00:01:00Z', '2030-01-01T00:01:30Z', 'FAILED'),
				       (4, 1, 1, 'w', '2030-01-01T00:00:05Z', NULL, NULL),
				       (5, 1, 0, 'w', '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z', 'SNOOZED'),
				       (5, 2, 0, 'w', '2030-01-01T00:00:05Z', '2030-01-01T00:00:05Z', 'CANCELLED')
				""");

		try (PostgresStorage storage = new PostgresStorage(new PostgresDatabase(this.db.dataSource(), "test"),
				TABLES)) {
			storage.initializeSchema();
			assertThat(outcomes(storage)).containsExactly(List.of(1L, 0L, 2L), List.of(0L, 1L, 1L));
			assertThat(this.db.count("SELECT count(*) FROM queue.jq_job_outcome_minutes")).isEqualTo(2);
			assertThat(this.db.count("SELECT count(*) FROM pg_indexes WHERE schemaname = 'queue' "
					+ "AND indexname = 'jq_job_attempts_outcome_idx'"))
				.as("the chart was the outcome index's only reader")
				.isZero();

			Instant now = MINUTE_B.plusSeconds(59);
			List<ClaimedJob> claimed = storage.jobs()
				.claim(new ClaimRequest("new", 1, Set.of("old"), Map.of(), Set.of(), now.plusSeconds(60)), now);
			assertThat(claimed).singleElement().satisfies((job) -> assertThat(job.id()).isEqualTo(3));
			assertThat(storage.jobs().complete(List.of(Completion.succeeded(claimed.get(0), null)), "new", now))
				.containsExactly(true);
			assertThat(outcomes(storage)).containsExactly(List.of(1L, 0L, 2L), List.of(1L, 1L, 1L));
		}
	}

	/** Succeeded, failed for good and retried runs in minutes A and B. */
	private static List<List<Long>> outcomes(PostgresStorage storage) {
		return storage.insights()
			.outcomes(MINUTE_A, MINUTE_B.plusSeconds(60), Duration.ofMinutes(1))
			.stream()
			.map((slot) -> List.of(slot.succeeded(), slot.failed(), slot.retried()))
			.toList();
	}

}
