package dev.jobqueue.sqlite;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.ClaimRequest;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.testing.QueueFileTests;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqliteJobStoreTests extends QueueFileTests {

	@Test
	void claimQueriesAndCountByStatusUseIndexesNotTableScans() {
		for (int i = 0; i < 200; i++) {
			this.harness.queue.enqueue(JobRequest.of((i % 2 == 0) ? "a" : "b", i).priority(i % 3));
		}
		SqliteJobStore store = this.db.store();
		String claimAll = store.tables().expand("""
				SELECT id FROM {jobs} INDEXED BY jobs_claim_idx
				WHERE status = 'pending' AND type IN ('a', 'b') AND run_at <= 0 ORDER BY priority DESC, run_at, id LIMIT 10
				""");
		String claimOne = store.tables().expand("""
				SELECT id FROM {jobs} INDEXED BY jobs_claim_type_idx
				WHERE status = 'pending' AND type = 'a' AND run_at <= 0 ORDER BY priority DESC, run_at, id LIMIT 10
				""");
		String countByStatus = "SELECT status, type, count(*) FROM jobs GROUP BY status, type";
		String recovery = "SELECT id FROM jobs WHERE status = 'running' AND lease_until < 0 LIMIT 10";
		String dedup = "SELECT id FROM jobs WHERE dedup_key = 'k' AND status IN ('pending', 'running')";
		for (String query : List.of(claimAll, claimOne, countByStatus, recovery, dedup)) {
			List<String> plan = queryPlan(query);
			assertThat(plan).as(query).isNotEmpty();
			assertThat(plan).as(query).noneMatch((step) -> step.matches("SCAN jobs( |$)(?!USING).*")
					|| step.equals("SCAN jobs"));
			assertThat(plan).as(query).noneMatch((step) -> step.contains("TEMP B-TREE"));
		}
	}

	@Test
	void theStoresOwnClaimStatementRunsOnTheClaimIndexes() {
		for (int types : new int[] { 1, 3 }) {
			List<String> plan = queryPlan(this.db.store().claimDueStatement(types));
			assertThat(plan).anyMatch((step) -> step.contains((types == 1) ? "jobs_claim_type_idx" : "jobs_claim_idx"));
			assertThat(plan).noneMatch((step) -> step.equals("SCAN jobs") || step.contains("TEMP B-TREE"));
		}
	}

	private List<String> queryPlan(String sql) {
		List<String> plan = new ArrayList<>();
		try (var connection = this.db.dataSource().getConnection();
				var statement = connection.createStatement();
				var rows = statement.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
			while (rows.next()) {
				plan.add(rows.getString("detail"));
			}
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
		System.out.println("EXPLAIN QUERY PLAN " + sql.strip().replaceAll("\\s+", " ") + " -> " + plan);
		return plan;
	}

	@Test
	void dedupUnderConcurrentEnqueuesYieldsOneJob() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(8);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<Long>> results = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			int n = i;
			Callable<Long> enqueue = () -> {
				start.await();
				return this.harness.queue.enqueue(JobRequest.of("mail", n).dedupKey("welcome-42"));
			};
			results.add(pool.submit(enqueue));
		}
		start.countDown();
		Set<Long> ids = new HashSet<>();
		for (Future<Long> result : results) {
			ids.add(result.get());
		}
		pool.shutdown();
		assertThat(ids).hasSize(1);
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE dedup_key = 'welcome-42'")).isEqualTo(1);
	}

	@Test
	void dedupKeyIsFreeAgainOnceTheJobFinished() {
		this.harness.handle(HandlerDefinition.of("mail", (payload, context) -> null));
		long first = this.harness.queue.enqueue(JobRequest.of("mail", 1).dedupKey("k"));
		assertThat(this.harness.queue.enqueue(JobRequest.of("mail", 2).dedupKey("k"))).isEqualTo(first);
		this.harness.directWorker("w").pollOnce();
		long second = this.harness.queue.enqueue(JobRequest.of("mail", 3).dedupKey("k"));
		assertThat(second).isNotEqualTo(first);
	}

	@Test
	void enqueueAllIsAllOrNothing() {
		List<JobRequest> requests = List.of(JobRequest.of("a", 1), JobRequest.of("a", 2).priority(5000));
		assertThatThrownBy(() -> this.harness.queue.enqueueAll(requests)).isInstanceOf(JobQueueException.class)
			.hasMessageContaining("Priority 5000")
			.hasMessageContaining("between -1000 and 1000");
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();

		List<Long> ids = this.harness.queue.enqueueAll(List.of(JobRequest.of("a", 1), JobRequest.of("b", 2)));
		assertThat(ids).hasSize(2);
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE event = 'ENQUEUED'")).isEqualTo(2);
	}

	@Test
	void badRequestsFailAtEnqueueSayingWhatToChange() {
		assertThatThrownBy(() -> this.harness.queue.enqueue(" ", 1)).hasMessageContaining("must not be null or blank");
		assertThatThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("a", 1).maxAttempts(0)))
			.hasMessageContaining("between 1 and 1000");
		assertThatThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("a", 1).delay(java.time.Duration.ofDays(-1))))
			.hasMessageContaining("Delay");
		assertThatThrownBy(() -> this.harness.queue.enqueue("a", "x".repeat(70_000)))
			.hasMessageContaining("jobqueue.max-payload-size")
			.hasMessageContaining("enqueue a reference");
		assertThatThrownBy(() -> this.harness.queue.enqueue("a", new Object() {
			@SuppressWarnings("unused")
			public Object getSelf() {
				return this;
			}
		})).hasMessageContaining("cannot be written as JSON");
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
	}

	@Test
	void perTypeClaimsHonourTheirQuota() {
		for (int i = 0; i < 6; i++) {
			this.harness.queue.enqueue("capped", i);
			this.harness.queue.enqueue("free", i);
		}
		ClaimRequest request = new ClaimRequest("w", 5, Set.of("free"), Map.of("capped", 2), Set.of(),
				Instant.parse("2026-01-01T00:01:00Z"));
		var claimed = this.db.store().claim(request, this.clock.instant());
		// The oldest five, except that the capped type gets no more than its two slots.
		assertThat(claimed).extracting((job) -> job.type() + ":" + job.payload())
			.containsExactly("capped:0", "free:0", "capped:1", "free:1", "free:2");
		var next = this.db.store().claim(new ClaimRequest("w", 5, Set.of(), Map.of("capped", 1), Set.of(),
				Instant.parse("2026-01-01T00:01:00Z")), this.clock.instant());
		assertThat(next).extracting((job) -> job.type() + ":" + job.payload()).containsExactly("capped:2");
	}

	@Test
	void tablePrefixKeepsTwoQueuesApartInOneFile() {
		try (TestDatabase other = TestDatabase.create(this.db.file(), "other_")) {
			WorkerHarness second = new WorkerHarness(other, this.clock);
			long id = second.queue.enqueue("x", 1);
			assertThat(second.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
			assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
			assertThat(other.count("SELECT count(*) FROM other_jobs")).isEqualTo(1);
			assertThat(other.count("SELECT count(*) FROM other_jobqueue_schema_history")).isPositive();
		}
	}

	@Test
	void newFileUsesWalForeignKeysAndIncrementalVacuum() {
		assertThat(this.db.column("PRAGMA journal_mode")).containsExactly("wal");
		assertThat(this.db.column("PRAGMA foreign_keys")).containsExactly(1);
		assertThat(this.db.column("PRAGMA auto_vacuum")).containsExactly(2);
		assertThat(this.db.column("PRAGMA synchronous")).containsExactly(1);
	}

}
