package dev.jobqueue.autoconfigure.actuate;

import java.util.Map;
import java.util.Optional;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobSchedules;
import dev.jobqueue.actuate.CrossSiteWriteFilter;
import dev.jobqueue.actuate.CrossSiteWriteGuard;
import dev.jobqueue.actuate.QueueEndpoint;
import dev.jobqueue.actuate.QueueEndpointSettings;
import dev.jobqueue.actuate.QueueEndpointWebExtension;
import dev.jobqueue.actuate.QueueReport;
import dev.jobqueue.actuate.UnreachableDatabaseAnswer;
import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.autoconfigure.QueueWorker;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.retention.JobQueueMaintenance;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.views.QueueViews;

/**
 * Auto-configures the {@code jobqueue} actuator endpoint when actuator is on the
 * classpath and the endpoint is available (exposed over some technology, and its access
 * not {@code none}), with its web extension when it is exposed over HTTP.
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean({ QueueViews.class, JobQueue.class, JobSchedules.class })
@ConditionalOnAvailableEndpoint(QueueEndpoint.class)
@EnableConfigurationProperties(QueueEndpointProperties.class)
public final class QueueEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	QueueEndpoint queueEndpoint(QueueViews views, JobQueue queue, JobSchedules schedules, QueueProperties properties,
			QueueEndpointProperties endpointProperties, ObjectProvider<JobQueueClock> clock,
			ObjectProvider<JobQueueMaintenance> maintenance, ObjectProvider<QueueWorker> worker,
			ObjectProvider<HandlerRegistry> handlers) {
		return new QueueEndpoint(views, queue, schedules, settings(properties),
				clock.getIfAvailable(JobQueueClock::system).clock(),
				() -> Optional.ofNullable(maintenance.getIfUnique()).flatMap(JobQueueMaintenance::lastRetentionReport),
				endpointProperties.getShowValues(), () -> localWorker(worker.getIfUnique()),
				() -> flowControls(handlers));
	}

	/** What the endpoint reads with and shows of {@code jobqueue.*}. */
	static QueueEndpointSettings settings(QueueProperties properties) {
		QueueProperties.Retention retention = properties.getRetention();
		return new QueueEndpointSettings(properties.snapshotSettings(),
				properties.getObservability().getPayloadPreview(),
				new QueueEndpointSettings.Retention(retention.isEnabled(), retention.getSucceeded(),
						retention.getFailed(), retention.getCancelled(), retention.getPerType(),
						retention.getBatchSize(), retention.getInterval()));
	}

	/** The flow control of each type this process handles with limits. */
	static Map<String, FlowControl> flowControls(ObjectProvider<HandlerRegistry> handlers) {
		HandlerRegistry registry = handlers.getIfUnique();
		return (registry != null) ? registry.flowControls() : Map.of();
	}

	private static QueueReport.LocalWorker localWorker(QueueWorker queueWorker) {
		JobWorker running = (queueWorker != null) ? queueWorker.worker() : null;
		if (running == null) {
			return null;
		}
		return new QueueReport.LocalWorker(running.workerId(), running.concurrency(), running.claimAhead(),
				running.runningCount(), running.waitingCount());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(QueueEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	QueueEndpointWebExtension queueEndpointWebExtension(QueueEndpoint endpoint, QueueEndpointProperties properties) {
		return new QueueEndpointWebExtension(endpoint, properties.getShowValues(), properties.getRoles());
	}

	@Bean
	static QueueEndpointWriteWarning queueEndpointWriteWarning(ObjectProvider<EndpointAccessResolver> accessResolver,
			ApplicationContext context) {
		return new QueueEndpointWriteWarning(accessResolver, context);
	}

	/**
	 * The endpoint's writes over HTTP refuse what a page of another site sent, whether or
	 * not Spring Security guards them (a browser sends a cached Basic login along): at
	 * the operation, wherever the endpoint is served, and early by a filter at the main
	 * server's default path, before any login is asked for.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(name = "jakarta.servlet.Filter")
	@ConditionalOnAvailableEndpoint(endpoint = QueueEndpoint.class, exposure = EndpointExposure.WEB)
	static class CrossSiteWrites {

		@Bean
		static CrossSiteWriteGuard queueEndpointCrossSiteWriteGuard() {
			return new CrossSiteWriteGuard();
		}

		/**
		 * A database that refuses connections is answered 503 in words, not Boot's 500.
		 */
		@Bean
		static UnreachableDatabaseAnswer queueEndpointUnreachableDatabaseAnswer() {
			return new UnreachableDatabaseAnswer();
		}

		@Bean
		FilterRegistrationBean<CrossSiteWriteFilter> queueEndpointCrossSiteWriteFilter(Environment environment) {
			String basePath = Binder.get(environment)
				.bind("management.endpoints.web.base-path", String.class)
				.orElse("/actuator");
			String path = (basePath.endsWith("/") ? basePath.substring(0, basePath.length() - 1) : basePath)
					+ "/jobqueue";
			FilterRegistrationBean<CrossSiteWriteFilter> registration = new FilterRegistrationBean<>(
					new CrossSiteWriteFilter());
			registration.addUrlPatterns(path, path + "/*");
			registration.setName("jobqueueEndpointCrossSiteWriteFilter");
			// Before the security filters: a refused request needs no login.
			registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 100);
			return registration;
		}

	}

}
