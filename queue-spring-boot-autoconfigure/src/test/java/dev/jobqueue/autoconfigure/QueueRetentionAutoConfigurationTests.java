package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.JobQueueMaintenance;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.store.StorageStats;
import dev.jobqueue.testing.JobRows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class QueueRetentionAutoConfigurationTests {

	@TempDir
	Path dir;

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(QueueAutoConfiguration.class, QueueRetentionAutoConfiguration.class))
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db"));
	}

	@Test
	void defaultsKeepSucceededAndCancelledThirtyDaysAndFailedNinety() {
		contextRunner().run((context) -> {
			assertThat(context).hasSingleBean(RetentionCleaner.class)
				.hasSingleBean(RetentionStore.class)
				.hasSingleBean(JobQueueMaintenance.class)
				.hasSingleBean(QueueHousekeeping.class);
			RetentionCleaner cleaner = context.getBean(RetentionCleaner.class);
			assertThat(cleaner.settings().batchSize()).isEqualTo(5_000);
			assertThat(cleaner.fileMaintenance()).as("the SQLite store looks after its file").isPresent();
			assertThat(cleaner.settings().policy().retention(JobStatus.SUCCEEDED, "any")).contains(Duration.ofDays(30));
			assertThat(cleaner.settings().policy().retention(JobStatus.FAILED, "any")).contains(Duration.ofDays(90));
			assertThat(cleaner.settings().policy().retention(JobStatus.CANCELLED, "any")).contains(Duration.ofDays(30));
			assertThat(context.getBean(QueueHousekeeping.class).isRunning()).isTrue();
		});
	}

	@Test
	void retentionsCanBeSwitchedOffAndOverriddenPerType() {
		contextRunner()
			.withPropertyValues("jobqueue.retention.failed=-1", "jobqueue.retention.succeeded=0",
					"jobqueue.retention.per-type.report=7d", "jobqueue.retention.batch-size=100")
			.run((context) -> {
				RetentionCleaner cleaner = context.getBean(RetentionCleaner.class);
				assertThat(cleaner.settings().batchSize()).isEqualTo(100);
				assertThat(cleaner.settings().policy().retention(JobStatus.FAILED, "thumbnail")).isEmpty();
				assertThat(cleaner.settings().policy().retention(JobStatus.SUCCEEDED, "thumbnail")).isEmpty();
				assertThat(cleaner.settings().policy().retention(JobStatus.FAILED, "report"))
					.contains(Duration.ofDays(7));
				assertThat(cleaner.settings().policy().retention(JobStatus.CANCELLED, "thumbnail"))
					.contains(Duration.ofDays(30));
			});
	}

	@Test
	void aCrashedCleanersLeaseIsTakenOverOnceTheConfiguredLeaseHasPassed() {
		contextRunner().withPropertyValues("jobqueue.retention.lease=1s").run((context) -> {
			RetentionCleaner cleaner = context.getBean(RetentionCleaner.class);
			assertThat(cleaner.settings().lease()).isEqualTo(Duration.ofSeconds(1));
			RetentionStore store = context.getBean(RetentionStore.class);
			Instant now = Instant.now();
			// A process that took the lease and died: a lease still held, then one taken
			// two leases ago.
			assertThat(store.acquireLease(RetentionCleaner.LEASE_TASK, "crashed", now, now.plusSeconds(60))).isTrue();
			assertThat(cleaner.purgeOnce(() -> false).outcome()).isEqualTo(RetentionReport.Outcome.SKIPPED);
			store.releaseLease(RetentionCleaner.LEASE_TASK, "crashed");
			Instant taken = now.minusSeconds(2);
			assertThat(store.acquireLease(RetentionCleaner.LEASE_TASK, "crashed", taken,
					taken.plus(cleaner.settings().lease())))
				.isTrue();
			assertThat(cleaner.purgeOnce(() -> false).outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
		});
	}

	@Test
	void eachRunDeletesTheRowsOfWorkersSilentForTenTimesWorkerDeadAfter() {
		contextRunner().withPropertyValues("jobqueue.observability.worker-dead-after=1m").run((context) -> {
			RetentionCleaner cleaner = context.getBean(RetentionCleaner.class);
			assertThat(cleaner.settings().workerRowsKeptFor()).isEqualTo(Duration.ofMinutes(10));
			javax.sql.DataSource dataSource = context.getBean(QueueDataSource.class).dataSource();
			long now = Instant.now().toEpochMilli();
			try (java.sql.Connection connection = dataSource.getConnection();
					java.sql.Statement statement = connection.createStatement()) {
				statement
					.executeUpdate("INSERT INTO job_workers (worker_id, host, pid, types, concurrency, started_at, "
							+ "heartbeat_at) VALUES ('w-crashed', 'h', 1, 'a', 1, 0, "
							+ (now - Duration.ofMinutes(11).toMillis()) + "), ('w-silent', 'h', 2, 'a', 1, 0, "
							+ (now - Duration.ofMinutes(5).toMillis()) + ")");
			}

			cleaner.purgeOnce(() -> false);

			try (java.sql.Connection connection = dataSource.getConnection();
					java.sql.Statement statement = connection.createStatement();
					java.sql.ResultSet rows = statement
						.executeQuery("SELECT worker_id FROM job_workers ORDER BY worker_id")) {
				java.util.List<String> left = new java.util.ArrayList<>();
				while (rows.next()) {
					left.add(rows.getString(1));
				}
				// Dead for the endpoint after a minute, kept to be seen until ten; this
				// process's own worker stays.
				assertThat(left).contains("w-silent").doesNotContain("w-crashed");
			}
		});
	}

	@Test
	void cleanupRunsEveryIntervalWithoutEnableScheduling() {
		contextRunner().withPropertyValues("jobqueue.retention.interval=100ms").run((context) -> {
			JobRows.insert(context.getBean(QueueDataSource.class).dataSource(), "", 50, "thumbnail",
					JobStatus.SUCCEEDED, Instant.now().minus(Duration.ofDays(40)), Duration.ofMillis(1));
			JobQueueMaintenance maintenance = context.getBean(JobQueueMaintenance.class);

			await().atMost(Duration.ofSeconds(20))
				.until(() -> maintenance.lastRetentionReport().map(RetentionReport::totalDeleted).orElse(0L) == 50);
		});
	}

	@Test
	void withRetentionDisabledHousekeepingOnlyCheckpoints() {
		// No worker: its heartbeat would write to the log between the checkpoint and the
		// look at its size.
		contextRunner().withPropertyValues("jobqueue.retention.enabled=false", "jobqueue.worker.enabled=false")
			.run((context) -> {
				JobRows.insert(context.getBean(QueueDataSource.class).dataSource(), "", 50, "thumbnail",
						JobStatus.SUCCEEDED, Instant.now().minus(Duration.ofDays(40)), Duration.ofMillis(1));
				JobQueueMaintenance maintenance = context.getBean(JobQueueMaintenance.class);

				context.getBean(QueueHousekeeping.class).runOnce();

				assertThat(maintenance.lastRetentionReport()).isEmpty();
				StorageStats storage = maintenance.storage();
				assertThat(storage.walBytes()).isZero();
				assertThat(maintenance.purge(JobStatus.SUCCEEDED, Duration.ofDays(1)).totalDeleted())
					.as("manual purge still works")
					.isEqualTo(50);
			});
	}

	@Test
	void userMaintenanceBeanWins() {
		contextRunner().withBean(JobQueueMaintenance.class, () -> new NoMaintenance()).run((context) -> {
			assertThat(context).hasSingleBean(JobQueueMaintenance.class);
			assertThat(context.getBean(JobQueueMaintenance.class)).isInstanceOf(NoMaintenance.class);
		});
	}

	@Test
	void backsOffWhenTheQueueIsDisabled() {
		contextRunner().withPropertyValues("jobqueue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RetentionCleaner.class)
				.doesNotHaveBean(QueueHousekeeping.class));
	}

	@Test
	void rejectsAnIntervalThatIsNotPositive() {
		contextRunner().withPropertyValues("jobqueue.retention.interval=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("jobqueue.retention.interval must be positive"));
	}

	static class NoMaintenance implements JobQueueMaintenance {

		@Override
		public RetentionReport purgeExpired() {
			return null;
		}

		@Override
		public RetentionReport purge(JobStatus status, Duration olderThan) {
			return null;
		}

		@Override
		public Optional<RetentionReport> lastRetentionReport() {
			return Optional.empty();
		}

		@Override
		public StorageStats storage() {
			return null;
		}

		@Override
		public StorageStats checkpoint() {
			return null;
		}

		@Override
		public StorageStats vacuum() {
			return null;
		}

		@Override
		public StorageStats enableIncrementalVacuum() {
			return null;
		}

	}

}
