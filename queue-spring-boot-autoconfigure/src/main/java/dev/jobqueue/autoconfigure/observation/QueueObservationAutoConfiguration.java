package dev.jobqueue.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.core.TraceContextSource;
import dev.jobqueue.observation.JobObservationConvention;
import dev.jobqueue.observation.ObservationRunInterceptor;
import dev.jobqueue.observation.PropagatorTraceContextSource;

/**
 * Auto-configures the {@code jobqueue.job} observation of each run and, with Micrometer
 * Tracing, storing the enqueuing trace's propagation headers, written by the
 * application's {@link Propagator}, with each job. The registry, tracer and propagator
 * are looked up when first needed, so this does not depend on the order of the
 * observation and tracing auto-configurations; without them it costs nothing.
 */
@AutoConfiguration(before = QueueAutoConfiguration.class)
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "jobqueue.enabled", matchIfMissing = true)
public final class QueueObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ObservationRunInterceptor jobQueueObservationInterceptor(ObjectProvider<ObservationRegistry> registry,
			ObjectProvider<JobObservationConvention> convention) {
		return new ObservationRunInterceptor(registry.getIfUnique(() -> ObservationRegistry.NOOP),
				convention.getIfUnique());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Tracer.class)
	static class TracingConfiguration {

		@Bean
		@ConditionalOnMissingBean(TraceContextSource.class)
		PropagatorTraceContextSource jobQueueTraceContextSource(ObjectProvider<Tracer> tracer,
				ObjectProvider<Propagator> propagator) {
			return new PropagatorTraceContextSource(tracer::getIfUnique, propagator::getIfUnique);
		}

	}

}
