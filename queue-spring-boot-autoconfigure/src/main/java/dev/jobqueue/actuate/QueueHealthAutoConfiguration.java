package dev.jobqueue.actuate;

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

import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.core.QueueInsights;

/**
 * Auto-configures the {@code jobqueue} health indicator (disable with
 * {@code management.health.jobqueue.enabled=false}).
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(QueueInsights.class)
@ConditionalOnEnabledHealthIndicator("jobqueue")
public final class QueueHealthAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "jobqueueHealthIndicator")
	QueueHealthIndicator jobqueueHealthIndicator(QueueInsights insights, QueueProperties properties,
			ObjectProvider<JobQueueClock> clock) {
		QueueProperties.Observability observability = properties.getObservability();
		String degraded = observability.getDegradedStatus();
		if (degraded == null || degraded.isBlank()) {
			throw new IllegalStateException("jobqueue.observability.degraded-status must not be blank: use "
					+ "OUT_OF_SERVICE (the default), or a custom status such as DEGRADED");
		}
		return new QueueHealthIndicator(insights, clock.getIfAvailable(JobQueueClock::system).clock(), observability.getStuckAfter(),
				observability.getMaxQueueAge(), new Status(degraded.trim().toUpperCase(Locale.ROOT)));
	}

}
