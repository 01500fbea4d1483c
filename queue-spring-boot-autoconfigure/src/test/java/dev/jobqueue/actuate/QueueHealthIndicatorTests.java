package dev.jobqueue.actuate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.sqlite.SqliteDatabase;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteQueueInsights;
import dev.jobqueue.testing.QueueFileTests;
import dev.jobqueue.views.QueueViews;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The health indicator on a real file. Tests may run as root, where {@code chmod} does
 * not stop reads or writes, so an unusable database is made in two other ways: a
 * read-only connection (what a read-only mount or file gives), and a file overwritten
 * with bytes that are not a database.
 */
@SuppressWarnings("unchecked")
class QueueHealthIndicatorTests extends QueueFileTests {

	@Test
	void upWhenTheDatabaseWorksAndNothingIsLate() {
		this.harness.queue.enqueue("email", "hello");
		Health health = indicator(null, Status.OUT_OF_SERVICE).health(true);
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("stuck", 0L).containsEntry("oldestClaimableAge", "PT0S");
	}

	@Test
	void degradedWhenAJobIsLeftRunningPastStuckAfter() {
		long id = this.harness.queue.enqueue("email", "hello");
		this.db.store()
			.claim(new ClaimRequest("w-gone", 1, Set.of("email"), Map.of(), Set.of(),
					this.clock.instant().plus(Duration.ofHours(1))), this.clock.instant());
		assertThat(indicator(null, Status.OUT_OF_SERVICE).health(true).getStatus()).isEqualTo(Status.UP);

		this.clock.advance(Duration.ofMinutes(16));

		Health health = indicator(null, Status.OUT_OF_SERVICE).health(true);
		assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
		assertThat(health.getDetails()).containsEntry("stuck", 1L);
		assertThat((List<Object>) health.getDetails().get("problems"))
			.containsExactly("1 running job(s) without heartbeat for more than PT15M");
		assertThat((List<Object>) health.getDetails().get("stuckJobs")).singleElement()
			.isEqualTo("job " + id + " (email) on worker w-gone, last heartbeat 2026-01-01T00:00:00Z (PT16M ago)");
	}

	@Test
	void customDegradedStatusWhenTheOldestClaimableJobIsOlderThanMaxQueueAge() {
		this.harness.queue.enqueue("email", "hello");
		this.harness.queue.enqueue(dev.jobqueue.JobRequest.of("email", "later").delay(Duration.ofHours(2)));
		this.clock.advance(Duration.ofMinutes(5));
		workerAliveNow("email");
		assertThat(indicator(Duration.ofMinutes(10), new Status("DEGRADED")).health(true).getStatus())
			.isEqualTo(Status.UP);

		this.clock.advance(Duration.ofMinutes(6));
		workerAliveNow("email");

		Health health = indicator(Duration.ofMinutes(10), new Status("DEGRADED")).health(true);
		assertThat(health.getStatus().getCode()).isEqualTo("DEGRADED");
		assertThat(health.getDetails()).containsEntry("oldestClaimableAge", "PT11M")
			.containsEntry("maxQueueAge", "PT10M");
		assertThat((List<Object>) health.getDetails().get("problems")).singleElement()
			.asString()
			.contains("has waited PT11M, more than PT10M");
	}

	@Test
	void jobsOfAPausedTypeOrOfATypeNoLiveWorkerHandlesAreHeldNotLate() {
		this.harness.queue.enqueue("email", "hello");
		this.harness.queue.enqueue("report", "monthly");
		this.harness.queue.pause("email");
		this.clock.advance(Duration.ofMinutes(30));
		workerAliveNow("email");

		// The email job is paused and no live worker handles reports: nothing is late.
		Health health = indicator(Duration.ofMinutes(10), Status.OUT_OF_SERVICE).health(true);
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("oldestClaimableAge", "PT0S");

		this.harness.queue.resume("email");
		health = indicator(Duration.ofMinutes(10), Status.OUT_OF_SERVICE).health(true);
		assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
		assertThat((List<Object>) health.getDetails().get("problems")).singleElement()
			.asString()
			.contains("email")
			.contains("has waited PT30M");
	}

	@Test
	void downWithTheReasonWhenTheDatabaseIsReadOnly() {
		SQLiteConfig config = SqliteDataSources.connectionConfig(Duration.ofSeconds(1), "NORMAL");
		config.setReadOnly(true);
		SQLiteDataSource readOnly = new SQLiteDataSource(config);
		readOnly.setUrl(this.db.url());
		Health health = indicatorOn(readOnly).health(true);
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails().get("reason")).asString().contains("the database is read-only");
	}

	@Test
	void theReasonLeavesTheFilesPathOutWhenValuesAreNotAlwaysShown() {
		SQLiteConfig config = SqliteDataSources.connectionConfig(Duration.ofSeconds(1), "NORMAL");
		config.setReadOnly(true);
		SQLiteDataSource readOnly = new SQLiteDataSource(config);
		readOnly.setUrl(this.db.url());
		String path = this.db.file().toString();
		assertThat(indicatorOn(readOnly).health(true).getDetails().get("reason")).asString().contains(path);
		Health hidden = indicatorOn(readOnly).hideLocation(path).health(true);
		assertThat(hidden.getStatus()).isEqualTo(Status.DOWN);
		assertThat(hidden.getDetails().get("reason")).asString()
			.doesNotContain(path)
			.contains(QueueHealthIndicator.HIDDEN_LOCATION)
			.contains("the database is read-only");
	}

	@Test
	void downWithTheReasonWhenTheFileIsNoLongerADatabase() throws Exception {
		this.db.close();
		Files.deleteIfExists(Path.of(this.db.file() + "-wal"));
		Files.deleteIfExists(Path.of(this.db.file() + "-shm"));
		Files.write(this.db.file(), "overwritten by a backup script that got the path wrong\n".repeat(100).getBytes());
		SQLiteDataSource broken = new SQLiteDataSource(
				SqliteDataSources.connectionConfig(Duration.ofSeconds(1), "NORMAL"));
		broken.setUrl(this.db.url());
		Health health = indicatorOn(broken).health(true);
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails().get("reason")).asString().contains("not a healthy SQLite database");
	}

	@Test
	void aProbeAnswersWhileAnotherConnectionHoldsTheWriteLock() throws Exception {
		CountDownLatch locked = new CountDownLatch(1);
		CountDownLatch probed = new CountDownLatch(1);
		FutureTask<Boolean> lockHolder = new FutureTask<>(() -> {
			try (Connection other = DriverManager.getConnection(this.db.url());
					Statement statement = other.createStatement()) {
				statement.execute("BEGIN IMMEDIATE");
				statement.execute("UPDATE jobs SET priority = priority + 1");
				locked.countDown();
				// Released by the probe's completion; a probe that waits for the lock
				// never releases it.
				boolean releasedWhileLocked = probed.await(10, TimeUnit.SECONDS);
				statement.execute("ROLLBACK");
				return releasedWhileLocked;
			}
		});
		Thread holder = new Thread(lockHolder, "lock-holder");
		holder.setDaemon(true);
		holder.start();
		assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
		// As patient as a production pool can be: a probe that asks for the write lock
		// waits out the holder.
		try (HikariDataSource patient = SqliteDataSources.create(this.db.url(), Duration.ofMinutes(1), "NORMAL", 2)) {
			Health health = indicatorOn(patient).health(true);
			probed.countDown();
			assertThat(lockHolder.get(30, TimeUnit.SECONDS)).as("probe completed while the write lock was held")
				.isTrue();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
		}
	}

	@Test
	void downWhenTheWorkerFailsRoundAfterRoundAndUpOnceItWritesAgain() {
		this.harness.handle(HandlerDefinition.of("email", (payload, context) -> null));
		this.harness.queue.enqueue("email", "hello");
		// A real write failure on the worker's claim, as a full disk or a damaged page
		// would give.
		this.db.execute("CREATE TRIGGER refuse_claims BEFORE UPDATE OF status ON jobs "
				+ "BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END");
		JobWorker worker = this.harness.worker("w-failing", Executors.newSingleThreadExecutor());
		QueueHealthIndicator indicator = new QueueHealthIndicator(
				new QueueViews(new SqliteQueueInsights(this.db.database(), SqliteDialect.tables(""))), this.clock,
				Duration.ofMinutes(15), null, new Status("DEGRADED"), () -> worker);
		worker.start();
		try {
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				Health health = indicator.health(true);
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails()).containsEntry("workerId", "w-failing");
				assertThat(health.getDetails().get("reason")).asString()
					.startsWith("The worker's last ")
					.contains("simulated write failure");
			});

			this.db.execute("DROP TRIGGER refuse_claims");

			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP));
		}
		finally {
			worker.stop();
		}
	}

	/**
	 * A worker of another process that handles these types and has just beaten its
	 * heartbeat.
	 */
	private void workerAliveNow(String... types) {
		this.db.execute(
				"INSERT OR REPLACE INTO job_workers (worker_id, host, pid, types, concurrency, started_at, "
						+ "heartbeat_at) VALUES ('w-other', 'other-host', 1, ?, 4, ?, ?)",
				String.join(",", types), this.clock.instant().toEpochMilli(), this.clock.instant().toEpochMilli());
	}

	private QueueHealthIndicator indicator(Duration maxQueueAge, Status degraded) {
		return new QueueHealthIndicator(
				new QueueViews(new SqliteQueueInsights(this.db.database(), SqliteDialect.tables(""))), this.clock,
				Duration.ofMinutes(15), maxQueueAge, degraded);
	}

	private QueueHealthIndicator indicatorOn(javax.sql.DataSource dataSource) {
		SqliteDatabase database = new SqliteDatabase(dataSource, this.db.file().toString(), Duration.ofSeconds(1));
		return new QueueHealthIndicator(new QueueViews(new SqliteQueueInsights(database, SqliteDialect.tables(""))),
				this.clock, Duration.ofMinutes(15), null, Status.OUT_OF_SERVICE);
	}

}
