package dev.jobqueue.actuate;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;

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
			ObjectProvider<Clock> clock) {
		QueueProperties.Observability observability = properties.getObservability();
		return new QueueHealthIndicator(insights, clock.getIfUnique(Clock::systemUTC), observability.getStuckAfter(),
				observability.getMaxQueueAge(), new Status(observability.getDegradedStatus().trim().toUpperCase(java.util.Locale.ROOT)));
	}

}
