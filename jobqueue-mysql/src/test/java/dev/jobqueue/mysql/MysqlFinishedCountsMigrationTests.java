package dev.jobqueue.mysql;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.mysql.testing.MariaDbTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue of schema V3 with finished and unfinished jobs migrates to V4 (finished jobs
 * counted as they finish): the counts are filled from the finished jobs already kept, so
 * the snapshot reports what it did before the upgrade, and jobs finishing or retried
 * afterwards change them. With a table prefix.
 */
@MariaDbTest
class MysqlFinishedCountsMigrationTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	private static final SnapshotSettings SETTINGS = new SnapshotSettings(Duration.ofMinutes(15), 5,
			Duration.ofMinutes(3), 10);

	private static final Tables TABLES = MysqlDialect.tables("jq_");

	@RegisterExtension
	final MigrationDatabase db = new MigrationDatabase(TABLES);

	@Test
	void aV3QueueReportsTheFinishedJobsItKept() {
		this.db.migrateTo("3");
		long t = NOW.minusSeconds(60).toEpochMilli();
		this.db.execute("""
				INSERT INTO jq_jobs (id, type, status, payload, attempts, max_attempts, runs, run_at, created_at,
				                     started_at, finished_at, worker_id, lease_until, waiting_for)
				VALUES (1, 'mail', 'succeeded', '{}', 1, 3, 1, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0),
				       (2, 'mail', 'succeeded', '{}', 1, 3, 1, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0),
				       (3, 'mail', 'failed', '{}', 3, 3, 3, %1$d, %1$d, %1$d, %1$d, 'w', NULL, 0),
				       (4, 'report', 'cancelled', '{}', 0, 3, 0, %1$d, %1$d, NULL, %1$d, NULL, NULL, 0),
				       (5, 'report', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 0),
				       (6, 'report', 'running', '{}', 1, 3, 1, %1$d, %1$d, %1$d, NULL, 'w', %2$d, 0),
				       (7, 'mail', 'pending', '{}', 0, 3, 0, %1$d, %1$d, NULL, NULL, NULL, NULL, 0)
				""".formatted(t, NOW.plusSeconds(3600).toEpochMilli()));

		MysqlStorage storage = this.db.storage();
		storage.initializeSchema();
		assertThat(counts(storage))
			.isEqualTo(Map.of("mail", Map.of(JobStatus.SUCCEEDED, 2L, JobStatus.FAILED, 1L, JobStatus.PENDING, 1L),
					"report", Map.of(JobStatus.CANCELLED, 1L, JobStatus.PENDING, 1L, JobStatus.RUNNING, 1L)));

		ClaimedJob claimed = storage.jobs()
			.claim(new ClaimRequest("new", 1, Set.of("mail"), Map.of(), Set.of(), NOW.plusSeconds(60)), NOW)
			.get(0);
		assertThat(claimed.id()).isEqualTo(7);
		assertThat(storage.jobs().complete(List.of(Completion.failed(claimed, "SMTP:REFUSED", "no")), "new", NOW))
			.containsExactly(true);
		assertThat(storage.admin().retry(3, NOW)).isTrue();
		assertThat(counts(storage).get("mail"))
			.isEqualTo(Map.of(JobStatus.SUCCEEDED, 2L, JobStatus.FAILED, 1L, JobStatus.PENDING, 1L));
	}

	private static Map<String, Map<JobStatus, Long>> counts(MysqlStorage storage) {
		return storage.insights().snapshot(NOW, SETTINGS).counts();
	}

}
