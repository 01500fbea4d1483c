package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file of schema V15 (keys on jobs, before flow control) migrates to V17: pending jobs
 * with a key move from the claim indexes to jobs_keyed_idx, those without stay, running
 * and failed keyed jobs are in jobs_keyed_idx too, and a claim under a key limit sees
 * them all.
 */
class FlowControlMigrationTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	@TempDir
	Path dir;

	@ParameterizedTest
	@ValueSource(strings = { "", "jq_" })
	void keyedJobsMoveToTheKeyedIndexAndClaimsSeeThem(String prefix) throws Exception {
		Path file = this.dir.resolve("old.db");
		TestDatabase.migrateFileTo(file, prefix, "15");
		long before = NOW.minusSeconds(60).toEpochMilli();
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
				Statement statement = connection.createStatement()) {
			statement.execute("INSERT INTO " + prefix
					+ "jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at, "
					+ "finished_at, waiting_for, job_key, worker_id, lease_until) VALUES "
					+ "(1, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, 0, NULL, NULL, NULL), ".formatted(before)
					+ "(2, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, 0, 'a', NULL, NULL), ".formatted(before)
					+ "(3, 'mail', 'running', '{}', 1, 3, 1, %1$d, %1$d, NULL, 0, 'b', 'w0', %2$d), ".formatted(before,
							NOW.plusSeconds(30).toEpochMilli())
					+ "(4, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, 0, 'b', NULL, NULL), ".formatted(before)
					+ "(5, 'mail', 'failed', '{}', 3, 3, 3, %1$d, %1$d, %1$d, 0, 'c', NULL, NULL), ".formatted(before)
					+ "(6, 'mail', 'succeeded', '{}', 1, 3, 1, %1$d, %1$d, %1$d, 0, 'a', NULL, NULL)"
						.formatted(before));
		}
		try (TestDatabase db = TestDatabase.create(file, prefix)) {
			assertThat(db.column("SELECT id FROM " + prefix + "jobs INDEXED BY " + prefix
					+ "jobs_claim_type_idx WHERE status = 'pending' AND job_key IS NULL ORDER BY id"))
				.map((id) -> ((Number) id).longValue())
				.containsExactly(1L);
			assertThat(db.column("SELECT id FROM " + prefix + "jobs INDEXED BY " + prefix
					+ "jobs_keyed_idx WHERE job_key IS NOT NULL AND status IN ('pending', 'running', 'failed') "
					+ "ORDER BY id"))
				.map((id) -> ((Number) id).longValue())
				.containsExactly(2L, 3L, 4L, 5L);
			assertThat(db.count("SELECT count(*) FROM " + prefix + "job_rate_starts")).isZero();

			FlowControl oneAtATime = new FlowControl(null, null, 1, false, true);
			ClaimRequest request = new ClaimRequest("w1", 10, Set.of(), Map.of("mail", 10), Set.of(),
					NOW.plusSeconds(30), Map.of(), 10, Map.of("mail", oneAtATime));
			assertThat(db.store().claim(request, NOW)).extracting(ClaimedJob::id).containsExactly(1L, 2L);
			assertThat(db.column("PRAGMA integrity_check")).containsExactly("ok");
		}
	}

}
