package dev.jobqueue.autoconfigure.metrics;

import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.QueueDataSource;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.autoconfigure.QueueWorker;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.metrics.QueueMeterListener;
import dev.jobqueue.metrics.QueueMetrics;
import dev.jobqueue.metrics.QueueSnapshotRefresher;
import dev.jobqueue.metrics.QueueWorkerMetrics;
import dev.jobqueue.views.QueueViews;

/**
 * Auto-configures the queue's Micrometer meters when a {@link MeterRegistry} is present:
 * the gauges of {@link QueueMetrics} behind a scheduled {@link QueueSnapshotRefresher},
 * the worker's timers and counters of {@link QueueMeterListener}, and the jobs the worker
 * holds ({@link QueueWorkerMetrics}).
 */
@AutoConfiguration(after = QueueAutoConfiguration.class, afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "jobqueue.enabled", matchIfMissing = true)
@ConditionalOnBean({ MeterRegistry.class, QueueViews.class })
public final class QueueMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	QueueSnapshotRefresher queueSnapshotRefresher(QueueViews views, QueueProperties properties,
			ObjectProvider<JobQueueClock> clock, ObjectProvider<HandlerRegistry> handlers) {
		return new QueueSnapshotRefresher(views, properties.snapshotSettings(),
				clock.getIfAvailable(JobQueueClock::system).clock(), properties.getObservability().getRefreshInterval(),
				() -> {
					HandlerRegistry registry = handlers.getIfUnique();
					return (registry != null) ? registry.flowControls() : Map.of();
				});
	}

	@Bean
	@ConditionalOnMissingBean
	QueueMetrics queueMetrics(QueueSnapshotRefresher refresher, QueueProperties properties,
			ObjectProvider<QueueStorage> storage) {
		QueueStorage queueStorage = storage.getIfUnique();
		return new QueueMetrics(refresher, properties.getObservability().getTopErrors(),
				(queueStorage != null) ? queueStorage::lockRetries : null);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(QueueWorker.class)
	QueueWorkerMetrics queueWorkerMetrics(QueueWorker worker) {
		return new QueueWorkerMetrics(worker::worker);
	}

	/**
	 * Hikari's meters of the queue's own pool
	 * ({@code hikaricp_connections{pool="jobqueue"}}, …), as Boot binds them for the
	 * application's pools. Boot's own binder only runs when the application has a
	 * DataSource of its own; whichever binds first wins.
	 */
	@Bean
	@ConditionalOnClass(name = "com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory")
	MeterBinder jobQueuePoolMeterBinder(ObjectProvider<QueueDataSource> dataSource) {
		return (registry) -> {
			QueueDataSource queueDataSource = dataSource.getIfUnique();
			if (queueDataSource != null && !queueDataSource.isShared()
					&& queueDataSource.dataSource() instanceof HikariDataSource pool && pool.getMetricRegistry() == null
					&& pool.getMetricsTrackerFactory() == null) {
				pool.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
			}
		};
	}

	@Bean
	@ConditionalOnMissingBean
	QueueMeterListener queueMeterListener() {
		return new QueueMeterListener();
	}

}
