package dev.jobqueue.dashboard;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobSchedules;
import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.core.store.QueueInsights;

/**
 * The dashboard ({@code jobqueue.dashboard.enabled=true}) in a servlet web application
 * with Spring MVC: routes under {@code jobqueue.dashboard.path}, through the
 * application's own filter chain. It shows values as the {@code jobqueue} endpoint does
 * ({@code management.endpoint.jobqueue.show-values} and {@code roles}).
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RouterFunction.class)
@ConditionalOnBooleanProperty("jobqueue.dashboard.enabled")
@ConditionalOnBean({ QueueInsights.class, JobQueue.class })
@EnableConfigurationProperties(DashboardProperties.class)
public final class QueueDashboardAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	QueueDashboard queueDashboard(QueueInsights insights, JobQueue queue, ObjectProvider<JobSchedules> schedules,
			QueueProperties properties, ObjectProvider<JobQueueClock> clock) {
		return new QueueDashboard(insights, queue, () -> {
			JobSchedules registry = schedules.getIfUnique();
			return (registry != null) ? registry.schedules() : List.of();
		}, properties, clock.getIfAvailable(JobQueueClock::system).clock());
	}

	@Bean
	RouterFunction<ServerResponse> queueDashboardRoutes(QueueDashboard dashboard, DashboardProperties properties,
			Environment environment) {
		return new DashboardRoutes(dashboard, properties, ValuesPolicy.of(environment)).routes();
	}

	@Bean
	@ConditionalOnClass(name = "org.springframework.boot.web.server.context.WebServerInitializedEvent")
	static DashboardStartupLog queueDashboardStartupLog(DashboardProperties properties, Environment environment) {
		return new DashboardStartupLog(properties, ValuesPolicy.of(environment));
	}

}
