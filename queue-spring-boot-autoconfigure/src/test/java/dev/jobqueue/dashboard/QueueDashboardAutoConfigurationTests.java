package dev.jobqueue.dashboard;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.function.RouterFunction;

import dev.jobqueue.autoconfigure.QueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

class QueueDashboardAutoConfigurationTests {

	@TempDir
	Path dir;

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueDashboardAutoConfiguration.class))
		.withPropertyValues("jobqueue.worker.enabled=false");

	private String queueFile() {
		return "jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db");
	}

	@Test
	void isOffByDefault() {
		this.contextRunner.withPropertyValues(queueFile()).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(QueueDashboard.class);
			assertThat(context).doesNotHaveBean(RouterFunction.class);
		});
	}

	@Test
	void servesItsRoutesWhenEnabledWithReadOnlyAndHiddenValuesAsDefaults() {
		this.contextRunner.withPropertyValues(queueFile(), "jobqueue.dashboard.enabled=true").run((context) -> {
			assertThat(context).hasSingleBean(QueueDashboard.class);
			assertThat(context).hasBean("queueDashboardRoutes");
			DashboardProperties properties = context.getBean(DashboardProperties.class);
			assertThat(properties.isReadOnly()).isTrue();
			assertThat(ValuesPolicy.of(context.getEnvironment()).showValues()).isEqualTo(ValuesPolicy.ShowValues.NEVER);
			assertThat(properties.basePath()).isEqualTo("/jobqueue");
		});
	}

	@Test
	void showsValuesAsTheEndpointsSettingsSay() {
		this.contextRunner
			.withPropertyValues(queueFile(), "jobqueue.dashboard.enabled=true",
					"management.endpoint.jobqueue.show-values=when-authorized",
					"management.endpoint.jobqueue.roles=OPS,AUDIT")
			.run((context) -> {
				ValuesPolicy values = ValuesPolicy.of(context.getEnvironment());
				assertThat(values.showValues()).isEqualTo(ValuesPolicy.ShowValues.WHEN_AUTHORIZED);
				assertThat(values.roles()).containsExactlyInAnyOrder("OPS", "AUDIT");
				assertThat(values.describe()).isEqualTo("when-authorized");
			});
	}

	@Test
	void backsOffOutsideAServletWebApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class,
					QueueDashboardAutoConfiguration.class))
			.withPropertyValues(queueFile(), "jobqueue.worker.enabled=false", "jobqueue.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(QueueDashboard.class));
	}

	@Test
	void backsOffWithoutSpringMvc() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(RouterFunction.class))
			.withPropertyValues(queueFile(), "jobqueue.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(QueueDashboard.class));
	}

	@Test
	void backsOffWithoutAQueue() {
		this.contextRunner.withPropertyValues(queueFile(), "jobqueue.enabled=false", "jobqueue.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(QueueDashboard.class));
	}

	@Test
	void aUserDashboardWins() {
		this.contextRunner.withPropertyValues(queueFile(), "jobqueue.dashboard.enabled=true")
			.withUserConfiguration(OwnDashboard.class)
			.run((context) -> assertThat(context).getBean(QueueDashboard.class)
				.isSameAs(context.getBean("ownDashboard")));
	}

	@Test
	void normalisesItsPath() {
		DashboardProperties properties = new DashboardProperties();
		properties.setPath("ops/queue/");
		assertThat(properties.basePath()).isEqualTo("/ops/queue");
		properties.setPath("/");
		assertThat(properties.basePath()).isEqualTo("/");
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnDashboard {

		@Bean
		QueueDashboard ownDashboard(dev.jobqueue.core.store.QueueInsights insights, dev.jobqueue.JobQueue queue,
				dev.jobqueue.autoconfigure.QueueProperties properties) {
			return new QueueDashboard(insights, queue, null, properties, java.time.Clock.systemUTC());
		}

	}

}
