package dev.jobqueue.postgresql;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The PostgreSQL statements one by one, on a real server; the engine's semantics are in
 * the behaviour suite.
 */
@PostgresTest
class PostgresJobStoreTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00.123456Z");

	private PostgresTestDatabase db;

	private PostgresJobStore store;

	private PostgresJobAdminStore admin;

	@BeforeEach
	void createDatabase() {
		this.db = PostgresTestDatabase.create();
		this.store = this.db.storage().jobs();
		this.admin = this.db.storage().admin();
	}

	@AfterEach
	void dropDatabase() {
		this.db.close();
	}

	private static NewJob job(String type, int priority, String dedupKey) {
		return new NewJob(type, "{\"n\":1}", priority, NOW, 3, dedupKey, null);
	}

	private static ClaimRequest claimAll(int limit, String... types) {
		return new ClaimRequest("w1", limit, Set.of(types), Map.of(), Set.of(), NOW.plusSeconds(30));
	}

	@Test
	void enqueueClaimAndCompleteWriteAttemptsAndEvents() {
		List<Long> ids = this.store.enqueue(List.of(job("a", 0, null)), NOW, () -> {
		});
		List<ClaimedJob> claimed = this.store.claim(claimAll(10, "a"), NOW);
		assertThat(claimed).extracting(ClaimedJob::id).containsExactlyElementsOf(ids);
		ClaimedJob job = claimed.get(0);
		assertThat(job.run()).isEqualTo(1);
		assertThat(job.attempt()).isEqualTo(1);
		assertThat(job.runAt()).isEqualTo(NOW.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
		assertThat(this.store.complete(List.of(Completion.succeeded(job, "\"ok\"")), "w1", NOW)).containsExactly(true);
		assertThat(this.admin.find(job.id()).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
		QueueInsights.JobDetail detail = this.db.storage().insights().job(job.id(), 100).orElseThrow();
		assertThat(detail.attempts()).extracting(QueueInsights.Attempt::outcome).containsExactly("SUCCEEDED");
		assertThat(detail.events()).extracting(QueueInsights.Event::event)
			.containsExactly("ENQUEUED", "CLAIMED", "SUCCEEDED");
		assertThat(detail.result().preview()).isEqualTo("\"ok\"");
	}

	@Test
	void manyJobsWithoutDedupKeysComeBackInRequestOrder() {
		List<NewJob> jobs = List.of(job("a", 0, null), job("b", 5, null), job("c", 1, null));
		List<Long> ids = this.store.enqueue(jobs, NOW, () -> {
		});
		assertThat(ids).hasSize(3).isSorted();
		assertThat(this.admin.find(ids.get(1)).orElseThrow().type()).isEqualTo("b");
		assertThat(this.store.claim(claimAll(10, "a", "b", "c"), NOW)).extracting(ClaimedJob::type)
			.containsExactly("b", "c", "a");
	}

	@Test
	void dedupKeyYieldsTheUnfinishedJob() {
		long first = this.store.enqueue(List.of(job("a", 0, "k")), NOW, () -> {
		}).get(0);
		long second = this.store.enqueue(List.of(job("a", 0, "k")), NOW, () -> {
		}).get(0);
		assertThat(second).isEqualTo(first);
	}

	@Test
	void lateOutcomeOfARecoveredRunIsRejected() {
		this.store.enqueue(List.of(job("a", 0, null)), NOW, () -> {
		});
		ClaimedJob first = this.store.claim(claimAll(1, "a"), NOW).get(0);
		assertThat(this.store.recoverExpiredLeases(NOW.plusSeconds(60), 10)).isEqualTo(1);
		ClaimedJob second = this.store.claim(claimAll(1, "a"), NOW.plusSeconds(60)).get(0);
		assertThat(second.run()).isEqualTo(2);
		assertThat(this.store.complete(List.of(Completion.succeeded(first, null)), "w1", NOW.plusSeconds(61)))
			.containsExactly(false);
		LeaseRenewal renewal = this.store.renewLeases("w1",
				List.of(new RunningJobRef(first.id(), first.run()), new RunningJobRef(second.id(), second.run())),
				NOW.plusSeconds(61), NOW.plusSeconds(90));
		assertThat(renewal.lost()).isEmpty();
		assertThat(this.store.complete(List.of(Completion.succeeded(second, null)), "w1", NOW.plusSeconds(62)))
			.containsExactly(true);
	}

	@Test
	void cancelOfARunningJobIsSeenAtRenewal() {
		this.store.enqueue(List.of(job("a", 0, null)), NOW, () -> {
		});
		ClaimedJob job = this.store.claim(claimAll(1, "a"), NOW).get(0);
		assertThat(this.admin.cancel(job.id(), NOW)).isTrue();
		LeaseRenewal renewal = this.store.renewLeases("w1", List.of(new RunningJobRef(job.id(), job.run())), NOW,
				NOW.plusSeconds(30));
		assertThat(renewal.cancelRequested()).containsExactly(job.id());
		assertThat(this.store.complete(List.of(Completion.retry(job, "X:Y", "boom", NOW.plusSeconds(5))), "w1", NOW))
			.containsExactly(true);
		assertThat(this.admin.find(job.id()).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.admin.retry(job.id(), NOW)).isTrue();
		assertThat(this.admin.find(job.id()).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
	}

	@Test
	void capsPausesAndGlobalLimitsInOneClaim() {
		for (int i = 0; i < 5; i++) {
			this.store.enqueue(List.of(job("capped", 0, null), job("free", 0, null), job("global", 9, null)), NOW,
					() -> {
					});
		}
		this.admin.pause("free", "test", NOW);
		ClaimRequest request = new ClaimRequest("w1", 10, Set.of("free"), Map.of("capped", 2, "global", 5), Set.of(),
				NOW.plusSeconds(30), Map.of("global", 3));
		List<ClaimedJob> claimed = this.store.claim(request, NOW);
		assertThat(claimed).extracting(ClaimedJob::type)
			.containsExactly("global", "global", "global", "capped", "capped");
		assertThat(this.store.claim(request, NOW)).extracting(ClaimedJob::type).containsExactly("capped", "capped");
	}

	@Test
	void availabilityCheckFindsAReadOnlyDatabaseWithoutWriting() {
		this.db.execute("ALTER DATABASE " + this.db.name() + " SET default_transaction_read_only = on");
		try (HikariDataSource readOnly = PostgresDataSources.create(this.db.url(), null, null, 1)) {
			PostgresQueueInsights insights = new PostgresQueueInsights(new PostgresDatabase(readOnly, this.db.name()),
					PostgresDialect.tables(null, ""));
			assertThatExceptionOfType(JobQueueException.class).isThrownBy(insights::checkAvailable)
				.withMessageContaining("the database is read-only");
		}
	}

	@Test
	void vacuumAnalyzesTheQueueTablesAndReportsTheirSize() {
		// What retention deletes is the behaviour suite's (RetentionTests); here, what
		// PostgreSQL does about the space.
		this.store.enqueue(List.of(job("a", 0, null)), NOW, () -> {
		});
		PostgresRetentionStore retention = this.db.storage().retention();
		assertThat(retention.vacuum().fileBytes()).isPositive();
		assertThat(this.db.count("SELECT count(*) FROM pg_stat_user_tables WHERE relname = 'jobs' "
				+ "AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL"))
			.isOne();
		assertThat(this.db.storage().fileMaintenance()).as("the server checkpoints and reuses space itself").isEmpty();
	}

}
