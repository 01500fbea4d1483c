package dev.jobqueue.metrics;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.InvalidJobInputException;
import dev.jobqueue.JobFailedException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteQueueInsights;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;
import dev.jobqueue.views.QueueViews;
import dev.jobqueue.views.SnapshotSettings;

import static org.assertj.core.api.Assertions.assertThat;

class QueueMetricsTests {

	static final SnapshotSettings SETTINGS = new SnapshotSettings(Duration.ofMinutes(15), 3, Duration.ofMinutes(3), 10);

	@TempDir
	Path dir;

	TestDatabase db;

	MutableClock clock = MutableClock.startingAt("2026-01-01T00:00:00Z");

	WorkerHarness harness;

	QueueMeterListener listener = new QueueMeterListener();

	QueueSnapshotRefresher refresher;

	@BeforeEach
	void setUp() {
		this.db = TestDatabase.create(this.dir);
		this.harness = new WorkerHarness(this.db, this.clock).listener(this.listener);
		this.refresher = new QueueSnapshotRefresher(
				new QueueViews(new SqliteQueueInsights(this.db.database(), SqliteDialect.tables(""))), SETTINGS,
				this.clock, Duration.ofSeconds(10));
	}

	@AfterEach
	void tearDown() {
		this.db.close();
	}

	@Test
	void metersAfterAKnownWorkload() {
		MeterRegistry registry = new SimpleMeterRegistry();
		bind(registry);
		runWorkload();
		this.refresher.refresh();

		assertThat(registry.get("jobqueue.jobs").tags("status", "succeeded", "type", "greet").gauge().value())
			.isEqualTo(2);
		assertThat(registry.get("jobqueue.jobs").tags("status", "failed", "type", "parse").gauge().value())
			.isEqualTo(1);
		assertThat(registry.get("jobqueue.jobs").tags("status", "pending", "type", "flaky").gauge().value())
			.isEqualTo(1);
		assertThat(registry.get("jobqueue.jobs").tags("status", "running", "type", "greet").gauge().value()).isZero();
		assertThat(registry.get("jobqueue.jobs").tags("status", "pending", "type", "greet").gauge().value())
			.isEqualTo(1);
		// The delayed greet job is not claimable, and the flaky one waits out its 7.5 s
		// backoff (due at 13.5 s).
		assertThat(registry.get("jobqueue.oldest.age").tag("status", "pending").gauge().value()).isZero();
		this.clock.advance(Duration.ofSeconds(30));
		this.refresher.refresh();
		assertThat(registry.get("jobqueue.oldest.age").tag("status", "pending").gauge().value()).isEqualTo(22.5);
		assertThat(registry.get("jobqueue.errors").tag("error_code", "INVALID_INPUT:INVALID").gauge().value())
			.isEqualTo(1);
		assertThat(registry.get("jobqueue.errors").tag("error_code", "DEPENDENCY:FLAKY").gauge().value()).isEqualTo(1);
		assertThat(registry.get("jobqueue.errors").tag("error_code", "OTHER").gauge().value()).isZero();
		assertThat(registry.get("jobqueue.retries").tag("attempts", "0").gauge().value()).isEqualTo(1);
		assertThat(registry.get("jobqueue.retries").tag("attempts", "1").gauge().value()).isEqualTo(2);

		// Runs are timed once, by the jobqueue.job observation, as Boot times scheduled
		// tasks.
		assertThat(registry.find("jobqueue.execution").meters()).isEmpty();
		Timer wait = registry.get("jobqueue.queue.wait").tags("type", "greet", "outcome", "succeeded").timer();
		assertThat(wait.max(TimeUnit.SECONDS)).isEqualTo(6.0);
		assertThat(registry.get("jobqueue.completed").tags("type", "greet", "outcome", "succeeded").counter().count())
			.isEqualTo(2);
		assertThat(registry.get("jobqueue.completed").tags("type", "parse", "outcome", "failed").counter().count())
			.isOne();
		assertThat(registry.get("jobqueue.claim.batch.size").summary().count()).isEqualTo(2);
		assertThat(registry.get("jobqueue.claim.batch.size").summary().max()).isEqualTo(3);
		assertThat(registry.get("jobqueue.sqlite.busy.retries").functionCounter().count()).isZero();
		assertThat(registry.get("jobqueue.sqlite.size").tag("file", "database").gauge().value()).isPositive();
		assertThat(registry.get("jobqueue.workers").gauge().value()).isOne();
	}

	@Test
	void stuckJobsAndOldestRunningAge() {
		MeterRegistry registry = new SimpleMeterRegistry();
		bind(registry);
		this.harness.queue.enqueue("greet", "ada");
		this.db.store()
			.claim(new ClaimRequest("w-gone", 1, Set.of("greet"), Map.of(), Set.of(),
					this.clock.instant().plus(Duration.ofHours(1))), this.clock.instant());
		this.clock.advance(Duration.ofMinutes(20));
		this.refresher.refresh();
		assertThat(registry.get("jobqueue.stuck").gauge().value()).isEqualTo(1);
		assertThat(registry.get("jobqueue.oldest.age").tag("status", "running").gauge().value()).isEqualTo(1200.0);
		assertThat(registry.get("jobqueue.unhandled").gauge().value()).isZero();
	}

	@Test
	void errorCodeCardinalityStaysBoundedWithAThousandDistinctCodes() {
		MeterRegistry registry = new SimpleMeterRegistry();
		bind(registry);
		long now = this.clock.millis();
		// Code k is carried by k jobs (up to 5), so the Top-3 is well defined: CODE-0999
		// ... has 5, ties by name.
		this.db.execute(
				"""
						WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2999)
						INSERT INTO jobs (type, status, payload, attempts, max_attempts, run_at, created_at, finished_at, error_code)
						SELECT 'parse', 'failed', '{}', 1, 1, ?, ?, ?, printf('INTERNAL:CODE-%04d', i % 1000) FROM n
						""",
				now, now, now);
		this.db.execute(
				"""
						INSERT INTO jobs (type, status, payload, attempts, max_attempts, run_at, created_at, finished_at, error_code)
						VALUES ('parse', 'failed', '{}', 1, 1, ?1, ?1, ?1, 'INTERNAL:CODE-0500'),
						       ('parse', 'failed', '{}', 1, 1, ?1, ?1, ?1, 'INTERNAL:CODE-0500'),
						       ('parse', 'failed', '{}', 1, 1, ?1, ?1, ?1, 'INTERNAL:CODE-0007')
						""",
				now);
		this.refresher.refresh();
		List<Gauge> gauges = List.copyOf(registry.find("jobqueue.errors").gauges());
		Map<String, Double> rows = gauges.stream()
			.collect(Collectors.toMap((gauge) -> gauge.getId().getTag("error_code"), Gauge::value));
		assertThat(rows).hasSize(4)
			.containsEntry("INTERNAL:CODE-0500", 5.0)
			.containsEntry("INTERNAL:CODE-0007", 4.0)
			.containsEntry("INTERNAL:CODE-0000", 3.0)
			.containsEntry("OTHER", 3003.0 - 12.0);
		// A later snapshot with other winners replaces the rows instead of adding to
		// them.
		this.db.execute("DELETE FROM jobs WHERE error_code IN ('INTERNAL:CODE-0500', 'INTERNAL:CODE-0007')");
		this.refresher.refresh();
		assertThat(registry.find("jobqueue.errors").gauges()).hasSize(4);
		assertThat(registry.find("jobqueue.errors").tag("error_code", "INTERNAL:CODE-0500").gauge()).isNull();
	}

	@Test
	void prometheusShowsEveryMeterUnderItsDocumentedName() {
		PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		bind(registry);
		runWorkload();
		this.clock.advance(Duration.ofSeconds(30));
		this.refresher.refresh();
		String scrape = registry.scrape();
		assertThat(scrape).contains("jobqueue_jobs{status=\"succeeded\",type=\"greet\"} 2.0",
				"jobqueue_oldest_age_seconds{status=\"pending\"} 22.5",
				"jobqueue_oldest_age_seconds{status=\"running\"} 0.0",
				"jobqueue_errors{error_code=\"INVALID_INPUT:INVALID\"} 1.0",
				"jobqueue_errors{error_code=\"OTHER\"} 0.0", "jobqueue_retries{attempts=\"1\"} 2.0",
				"jobqueue_queue_wait_seconds_max{outcome=\"succeeded\",type=\"greet\"} 6.0",
				"jobqueue_completed_total{outcome=\"failed\",type=\"parse\"} 1.0", "jobqueue_claim_batch_size_count 2",
				"jobqueue_sqlite_busy_retries_total 0.0", "jobqueue_stuck 0.0", "jobqueue_unhandled ",
				"jobqueue_workers 1.0", "jobqueue_sqlite_size_bytes{file=\"wal\"}", "jobqueue_sqlite_free_pages ");
	}

	@Test
	void throttledJobsAndBlockedKeysPerTypeAndReasonNeverPerKey() {
		FlowControl ordered = new FlowControl(null, null, 0, true, true);
		QueueSnapshotRefresher refresher = new QueueSnapshotRefresher(
				new QueueViews(new SqliteQueueInsights(this.db.database(), SqliteDialect.tables(""))), SETTINGS,
				this.clock, Duration.ofSeconds(10), () -> Map.of("charge", ordered));
		PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		new QueueMetrics(refresher, SETTINGS.topErrors(), null).bindTo(registry);
		this.harness.handle(new HandlerDefinition("charge", (payload, context) -> {
			if (payload.contains("broken")) {
				throw new InvalidJobInputException("card declined for good");
			}
			return null;
		}, 0, null, 0, true, "charge", 0, ordered));
		for (String key : List.of("customer-1", "customer-2")) {
			this.harness.queue.enqueue(JobRequest.of("charge", key.equals("customer-1") ? "broken" : "ok").key(key));
			this.harness.queue.enqueue(JobRequest.of("charge", "ok").key(key));
			this.harness.queue.enqueue(JobRequest.of("charge", "ok").key(key));
		}
		refresher.refresh();
		assertThat(
				registry.get("jobqueue.jobs.throttled").tags("type", "charge", "reason", "key-limit").gauge().value())
			.as("each key's first job goes, the others follow it")
			.isEqualTo(4);

		JobWorker worker = this.harness.directWorker("w1");
		assertThat(worker.pollOnce()).isEqualTo(2);
		refresher.refresh();
		assertThat(registry.get("jobqueue.jobs.throttled").tags("type", "charge", "reason", "blocked").gauge().value())
			.isEqualTo(2);
		assertThat(
				registry.get("jobqueue.jobs.throttled").tags("type", "charge", "reason", "key-limit").gauge().value())
			.isEqualTo(1);
		assertThat(registry.get("jobqueue.keys.blocked").tags("type", "charge").gauge().value()).isEqualTo(1);
		assertThat(registry.find("jobqueue.jobs.throttled").gauges()).as("one per reason, no tag per key").hasSize(4);
		assertThat(registry.scrape()).contains("jobqueue_jobs_throttled{reason=\"blocked\",type=\"charge\"} 2.0",
				"jobqueue_jobs_throttled{reason=\"rate-limit\",type=\"charge\"} 0.0",
				"jobqueue_keys_blocked{type=\"charge\"} 1.0");
		assertThat(registry.scrape()).doesNotContain("customer-");
	}

	private void bind(MeterRegistry registry) {
		new QueueMetrics(this.refresher, SETTINGS.topErrors(), this.db.database()::busyRetries).bindTo(registry);
		this.listener.bindTo(registry);
	}

	/**
	 * Three due jobs claimed 6 s after enqueue (two greet succeed, one parse fails for
	 * good), then a flaky job that fails once (retry after 7.5 s), and a greet job
	 * scheduled an hour ahead.
	 */
	private void runWorkload() {
		this.harness.handle(HandlerDefinition.of("greet", (payload, context) -> "hi"));
		this.harness.handle(HandlerDefinition.of("parse", (payload, context) -> {
			throw new InvalidJobInputException("not a number");
		}));
		this.harness.handle(HandlerDefinition.of("flaky", (payload, context) -> {
			throw new JobFailedException("DEPENDENCY:FLAKY", "try later", true);
		}));
		this.harness.queue.enqueue("greet", "ada");
		this.harness.queue.enqueue("greet", "bob");
		this.harness.queue.enqueue("parse", "x");
		JobWorker worker = this.harness.directWorker("w1");
		this.clock.advance(Duration.ofSeconds(6));
		assertThat(worker.pollOnce()).isEqualTo(3);
		this.harness.queue.enqueue("flaky", "y");
		this.harness.queue.enqueue(JobRequest.of("greet", "later").delay(Duration.ofHours(1)));
		assertThat(worker.pollOnce()).isEqualTo(1);
	}

}
