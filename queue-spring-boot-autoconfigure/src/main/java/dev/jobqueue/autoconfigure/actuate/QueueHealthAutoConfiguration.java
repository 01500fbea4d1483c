package dev.jobqueue.autoconfigure.actuate;

import java.util.Locale;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.jobqueue.actuate.QueueHealthIndicator;
import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.autoconfigure.QueueWorker;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.QueueStorage;

/**
 * Auto-configures the {@code jobqueue} health indicator (disable with
 * {@code management.health.jobqueue.enabled=false}).
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(QueueInsights.class)
@ConditionalOnEnabledHealthIndicator("jobqueue")
public final class QueueHealthAutoConfiguration {

	/**
	 * Named like Boot's {@code dbHealthContributor}: a user's bean of either name
	 * replaces it.
	 */
	@Bean
	@ConditionalOnMissingBean(name = { "jobqueueHealthIndicator", "jobqueueHealthContributor" })
	QueueHealthIndicator jobqueueHealthContributor(QueueInsights insights, QueueProperties properties,
			ObjectProvider<JobQueueClock> clock, ObjectProvider<QueueWorker> worker,
			ObjectProvider<QueueStorage> storage, Environment environment) {
		QueueProperties.Observability observability = properties.getObservability();
		String degraded = observability.getDegradedStatus();
		if (degraded == null || degraded.isBlank()) {
			throw new IllegalStateException("jobqueue.observability.degraded-status must not be blank: use "
					+ "DEGRADED (the default), OUT_OF_SERVICE or DOWN");
		}
		QueueHealthIndicator indicator = new QueueHealthIndicator(insights,
				clock.getIfAvailable(JobQueueClock::system).clock(), observability.getStuckAfter(),
				observability.getMaxQueueAge(), new Status(degraded.trim().toUpperCase(Locale.ROOT)), () -> {
					QueueWorker queueWorker = worker.getIfUnique();
					return (queueWorker != null) ? queueWorker.worker() : null;
				}, properties.snapshotSettings().workerDeadAfter());
		// Health answers everyone alike, so the location shows only when values always
		// do.
		QueueStorage queueStorage = storage.getIfUnique();
		String showValues = environment.getProperty("management.endpoint.jobqueue.show-values", "never");
		if (queueStorage != null && !showValues.trim().equalsIgnoreCase("always")) {
			indicator.hideLocation(queueStorage.description());
		}
		return indicator;
	}

}
