package dev.jobqueue.dashboard.autoconfigure;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.function.RouterFunction;

import dev.jobqueue.JobQueue;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.dashboard.DashboardSettings;
import dev.jobqueue.dashboard.QueueDashboard;
import dev.jobqueue.dashboard.ValuesPolicy;
import dev.jobqueue.views.QueueViews;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
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
			DashboardSettings settings = QueueDashboardAutoConfiguration
				.settings(context.getBean(DashboardProperties.class), context.getEnvironment());
			assertThat(settings.readOnly()).isTrue();
			assertThat(settings.values().showValues()).isEqualTo(ValuesPolicy.ShowValues.NEVER);
			assertThat(settings.path()).isEqualTo("/jobqueue");
		});
	}

	@Test
	void showsValuesAsTheEndpointsSettingsSay() {
		this.contextRunner
			.withPropertyValues(queueFile(), "jobqueue.dashboard.enabled=true",
					"management.endpoint.jobqueue.show-values=when-authorized",
					"management.endpoint.jobqueue.roles=OPS,AUDIT")
			.run((context) -> {
				ValuesPolicy values = QueueDashboardAutoConfiguration.valuesPolicy(context.getEnvironment());
				assertThat(values.showValues()).isEqualTo(ValuesPolicy.ShowValues.WHEN_AUTHORIZED);
				assertThat(values.roles()).containsExactlyInAnyOrder("OPS", "AUDIT");
				assertThat(values.describe()).isEqualTo("when-authorized");
			});
	}

	@Test
	void backsOffOutsideAWebApplicationAndSaysWhy(CapturedOutput output) {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class,
					QueueDashboardAutoConfiguration.class, DashboardUnavailableAutoConfiguration.class))
			.withPropertyValues(queueFile(), "jobqueue.worker.enabled=false", "jobqueue.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(QueueDashboard.class));
		assertThat(output).contains("jobqueue.dashboard.enabled=true, but this application has no web server")
			.contains("spring-boot-starter-webmvc");
	}

	@Test
	void saysNothingOfAMissingWebServerWhenTheDashboardIsOff(CapturedOutput output) {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class,
					DashboardUnavailableAutoConfiguration.class))
			.withPropertyValues(queueFile(), "jobqueue.worker.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed());
		this.contextRunner.withConfiguration(AutoConfigurations.of(DashboardUnavailableAutoConfiguration.class))
			.withPropertyValues(queueFile(), "jobqueue.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("but this application has no web server");
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

	/**
	 * It was {@code dev.jobqueue.dashboard.QueueDashboardAutoConfiguration}: an exclusion
	 * by that name still applies ({@code AutoConfiguration.replacements}).
	 */
	@Test
	void anExclusionByItsFormerNameStillApplies() {
		WebApplicationContextRunner application = new WebApplicationContextRunner()
			.withUserConfiguration(Application.class)
			.withPropertyValues(queueFile(), "jobqueue.worker.enabled=false", "jobqueue.dashboard.enabled=true");
		application.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(QueueDashboard.class));
		application
			.withPropertyValues("spring.autoconfigure.exclude=dev.jobqueue.dashboard.QueueDashboardAutoConfiguration")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(JobQueue.class)
				.doesNotHaveBean(QueueDashboard.class));
	}

	@Test
	void normalisesItsPath() {
		this.contextRunner
			.withPropertyValues(queueFile(), "jobqueue.dashboard.enabled=true", "jobqueue.dashboard.path=ops/queue/")
			.run((context) -> assertThat(QueueDashboardAutoConfiguration
				.settings(context.getBean(DashboardProperties.class), context.getEnvironment())
				.path()).isEqualTo("/ops/queue"));
		assertThat(settingsWithPath("/").path()).isEqualTo("/");
		assertThat(settingsWithPath(" ").path()).isEqualTo("/jobqueue");
	}

	private static DashboardSettings settingsWithPath(String path) {
		return new DashboardSettings(path, true, Duration.ofSeconds(3),
				new ValuesPolicy(ValuesPolicy.ShowValues.NEVER, Set.of()));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
	static class Application {

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnDashboard {

		@Bean
		QueueDashboard ownDashboard(QueueViews views, JobQueue queue, QueueProperties properties) {
			return new QueueDashboard(views, queue, null, properties.snapshotSettings(), 0, Clock.systemUTC());
		}

	}

}
