package dev.jobqueue.actuate;

import java.util.Optional;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.JobQueue;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.core.QueueInsights;
import dev.jobqueue.core.JobQueueMaintenance;

/**
 * Auto-configures the {@code jobqueue} actuator endpoint when actuator is on the classpath and the endpoint is
 * available (enabled and exposed over some technology).
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean({ QueueInsights.class, JobQueue.class })
@ConditionalOnAvailableEndpoint(QueueEndpoint.class)
public final class QueueEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	QueueEndpoint queueEndpoint(QueueInsights insights, JobQueue queue, QueueProperties properties,
			ObjectProvider<JobQueueClock> clock, ObjectProvider<JobQueueMaintenance> maintenance) {
		return new QueueEndpoint(insights, queue, properties, clock.getIfAvailable(JobQueueClock::system).clock(),
				() -> Optional.ofNullable(maintenance.getIfUnique()).flatMap(JobQueueMaintenance::lastRetentionReport));
	}

}
