package dev.jobqueue.autoconfigure;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.retention.DefaultJobQueueMaintenance;
import dev.jobqueue.core.retention.JobQueueMaintenance;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.core.retention.TableVacuums;
import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.worker.JobWorker;

/**
 * Auto-configures retention and SQLite housekeeping: the {@link RetentionCleaner}, the
 * operator's {@link JobQueueMaintenance} and {@link QueueHousekeeping}, which runs the
 * cleanup (or, with {@code jobqueue.retention.enabled=false}, only write-ahead log
 * checkpoints) every {@code jobqueue.retention.interval}.
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "jobqueue.enabled", matchIfMissing = true)
@ConditionalOnBean(QueueStorage.class)
@EnableConfigurationProperties(QueueProperties.class)
public final class QueueRetentionAutoConfiguration {

	/**
	 * A worker's row is deleted once it has been silent for this many times
	 * jobqueue.observability.worker-dead-after: long after the endpoint has shown it
	 * dead.
	 */
	static final int WORKER_ROWS_KEPT_FACTOR = 10;

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	RetentionStore queueRetentionStore(QueueStorage storage) {
		return storage.retention();
	}

	@Bean
	@ConditionalOnMissingBean
	RetentionCleaner queueRetentionCleaner(RetentionStore store, QueueStorage storage, QueueProperties properties,
			ObjectProvider<JobQueueClock> clock, ObjectProvider<QueueWorker> worker) {
		QueueProperties.Retention retention = properties.getRetention();
		RetentionPolicy policy = RetentionPolicy.of(retention.getSucceeded(), retention.getFailed(),
				retention.getCancelled(), retention.getPerType());
		Clock queueClock = clock.getIfAvailable(JobQueueClock::system).clock();
		TableVacuums vacuums = storage.tableMaintenance()
			.map((tables) -> new TableVacuums(tables, retention.getVacuum(), queueClock))
			.orElse(null);
		return new RetentionCleaner(store, storage.fileMaintenance().orElse(null), vacuums,
				RetentionSettings.of(policy, retention.getBatchSize())
					.withLease(retention.getLease())
					.withWorkerRowsKeptFor(
							properties.snapshotSettings().workerDeadAfter().multipliedBy(WORKER_ROWS_KEPT_FACTOR)),
				queueClock, WorkerIds.newId(), () -> isIdle(worker.getIfAvailable()));
	}

	private static boolean isIdle(QueueWorker worker) {
		JobWorker running = (worker != null) ? worker.worker() : null;
		return running == null || running.runningCount() == 0 && running.waitingCount() == 0;
	}

	@Bean
	@ConditionalOnMissingBean
	JobQueueMaintenance jobQueueMaintenance(RetentionCleaner cleaner, RetentionStore store) {
		return new DefaultJobQueueMaintenance(cleaner, store);
	}

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	QueueHousekeeping queueHousekeeping(RetentionCleaner cleaner, QueueProperties properties) {
		return new QueueHousekeeping(cleaner, properties.getRetention().getInterval(),
				properties.getRetention().isEnabled());
	}

	@Bean
	static LazyInitializationExcludeFilter queueHousekeepingLazyInitializationExcludeFilter() {
		return LazyInitializationExcludeFilter.forBeanTypes(QueueHousekeeping.class);
	}

}
