package dev.jobqueue.postgresql;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.Job;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.postgresql.testing.PostgresTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue created by the migrations before chains (V1 to V3), with jobs in it, migrates
 * to V4 when a new version starts, and its jobs go on as before next to new chains.
 */
@PostgresTest
class PostgresChainsMigrationTests {

	@RegisterExtension
	final MigrationDatabase db = new MigrationDatabase(PostgresDialect.tables("queue", "jq_"));

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	/** The schema as the version before chains left it: migrations up to V3. */

	@Test
	void aV3QueueWithJobsMigratesAndKeepsWorking() {
		this.db.migrateTo("3");
		this.db.execute(
				"INSERT INTO queue.jq_jobs (id, type, status, payload, max_attempts, run_at, created_at, finished_at) "
						+ "OVERRIDING SYSTEM VALUE VALUES "
						+ "(1, 'old', 'pending', '{}', 3, '2029-12-31T00:00:00Z', '2029-12-31T00:00:00Z', NULL), "
						+ "(2, 'old', 'succeeded', '{}', 3, '2029-12-31T00:00:00Z', '2029-12-31T00:00:00Z', "
						+ "'2029-12-31T00:00:01Z'), "
						+ "(3, 'old', 'failed', '{}', 3, '2029-12-31T00:00:00Z', '2029-12-31T00:00:00Z', '2029-12-31T00:00:01Z')");
		this.db.execute("SELECT setval(pg_get_serial_sequence('queue.jq_jobs', 'id'), 3)");

		PostgresStorage storage = this.db.storage();
		try {
			storage.initializeSchema();
			PostgresJobStore store = storage.jobs();
			PostgresJobAdminStore admin = storage.admin();

			Job old = admin.find(1).orElseThrow();
			assertThat(old.status()).isEqualTo(JobStatus.PENDING);
			assertThat(old.chainId()).isNull();
			assertThat(old.chainIndex()).isNull();
			assertThat(old.unfinishedDependencies()).isZero();

			// New jobs wait for old ones: the finished ones count at once.
			long waiting = store
				.enqueue(List.of(PostgresChainsTests.after("new", DependencyPolicy.RUN, 1L, 2L, 3L)), NOW, () -> {
				})
				.get(0);
			assertThat(admin.find(waiting).orElseThrow().status()).isEqualTo(JobStatus.WAITING);
			assertThat(admin.find(waiting).orElseThrow().unfinishedDependencies()).isEqualTo(1);
			assertThat(storage.insights()
				.snapshot(NOW, new QueueInsights.SnapshotSettings(Duration.ofMinutes(5), 10, Duration.ofMinutes(1), 10))
				.counts()
				.get("new")).containsEntry(JobStatus.WAITING, 1L);

			ClaimedJob claimed = store
				.claim(new ClaimRequest("w1", 10, Set.of("old"), Map.of(), Set.of(), NOW.plusSeconds(30)), NOW)
				.get(0);
			assertThat(claimed.id()).isEqualTo(1);
			assertThat(store.complete(List.of(Completion.succeeded(claimed, null)), "w1", NOW)).containsExactly(true);
			assertThat(admin.find(waiting).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
			assertThat(admin.retry(3, NOW)).isTrue();
		}
		finally {
			storage.close();
		}
		assertThat(this.db.count("SELECT max(version::int) FROM queue.jq_jobqueue_schema_history"))
			.isGreaterThanOrEqualTo(4);
		// The old status check is gone, and the new one refuses what it should.
		assertThat(this.db.count("SELECT count(*) FROM pg_constraint WHERE conrelid = 'queue.jq_jobs'::regclass "
				+ "AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%status%'"))
			.isEqualTo(1);
		assertThatRefused("UPDATE queue.jq_jobs SET status = 'lost' WHERE id = 2");
		assertThatRefused("UPDATE queue.jq_jobs SET dependency_policy = 'maybe' WHERE id = 2");
	}

	private void assertThatRefused(String sql) {
		org.assertj.core.api.Assertions.assertThatIllegalStateException()
			.isThrownBy(() -> this.db.execute(sql))
			.havingCause()
			.withMessageContaining("check constraint");
	}

}
