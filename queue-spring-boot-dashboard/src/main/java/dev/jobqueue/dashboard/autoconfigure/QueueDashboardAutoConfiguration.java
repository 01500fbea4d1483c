package dev.jobqueue.dashboard.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobSchedules;
import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.dashboard.DashboardRoutes;
import dev.jobqueue.dashboard.DashboardSettings;
import dev.jobqueue.dashboard.QueueDashboard;
import dev.jobqueue.dashboard.ValuesPolicy.ShowValues;
import dev.jobqueue.dashboard.ValuesPolicy;
import dev.jobqueue.views.QueueViews;

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
@ConditionalOnBean({ QueueViews.class, JobQueue.class })
@EnableConfigurationProperties(DashboardProperties.class)
public final class QueueDashboardAutoConfiguration {

	static final String SHOW_VALUES = "management.endpoint.jobqueue.show-values";

	static final String ROLES = "management.endpoint.jobqueue.roles";

	@Bean
	@ConditionalOnMissingBean
	QueueDashboard queueDashboard(QueueViews views, JobQueue queue, ObjectProvider<JobSchedules> schedules,
			QueueProperties properties, ObjectProvider<JobQueueClock> clock, ObjectProvider<HandlerRegistry> handlers) {
		return new QueueDashboard(views, queue, () -> {
			JobSchedules registry = schedules.getIfUnique();
			return (registry != null) ? registry.schedules() : List.of();
		}, properties.snapshotSettings(), properties.getObservability().getPayloadPreview(),
				clock.getIfAvailable(JobQueueClock::system).clock(), () -> {
					HandlerRegistry registry = handlers.getIfUnique();
					return (registry != null) ? registry.flowControls() : Map.of();
				});
	}

	@Bean
	RouterFunction<ServerResponse> queueDashboardRoutes(QueueDashboard dashboard, DashboardProperties properties,
			Environment environment) {
		return new DashboardRoutes(dashboard, settings(properties, environment)).routes();
	}

	@Bean
	@ConditionalOnClass(name = "org.springframework.boot.web.server.context.WebServerInitializedEvent")
	static DashboardStartupLog queueDashboardStartupLog(DashboardProperties properties, Environment environment) {
		return new DashboardStartupLog(settings(properties, environment));
	}

	static DashboardSettings settings(DashboardProperties properties, Environment environment) {
		return new DashboardSettings(properties.getPath(), properties.isReadOnly(), properties.getRefreshInterval(),
				valuesPolicy(environment));
	}

	/**
	 * The endpoint's values policy, bound from the environment rather than taken from the
	 * endpoint's properties, so the dashboard needs no actuator.
	 */
	static ValuesPolicy valuesPolicy(Environment environment) {
		Binder binder = Binder.get(environment);
		return new ValuesPolicy(binder.bind(SHOW_VALUES, ShowValues.class).orElse(ShowValues.NEVER),
				binder.bind(ROLES, Bindable.setOf(String.class)).orElse(Set.of()));
	}

}
