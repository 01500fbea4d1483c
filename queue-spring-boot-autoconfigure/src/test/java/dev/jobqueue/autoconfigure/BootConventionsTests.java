package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.jobqueue.JobErrorCode;
import dev.jobqueue.JobHandler;
import dev.jobqueue.ScheduleInfo;
import dev.jobqueue.autoconfigure.actuate.QueueEndpointAutoConfiguration;
import dev.jobqueue.autoconfigure.actuate.QueueHealthAutoConfiguration;
import dev.jobqueue.autoconfigure.metrics.QueueMetricsAutoConfiguration;
import dev.jobqueue.autoconfigure.observation.QueueObservationAutoConfiguration;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.schedule.JobScheduler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue follows the conventions Boot users rely on for {@code @Scheduled} and Boot's
 * own starters.
 */
class BootConventionsTests {

	@TempDir
	Path dir;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueRetentionAutoConfiguration.class, QueueObservationAutoConfiguration.class,
				QueueMetricsAutoConfiguration.class, QueueEndpointAutoConfiguration.class,
				QueueHealthAutoConfiguration.class));

	private String ownUrl() {
		return "jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db");
	}

	@Test
	void handlerBeansStayEagerUnderLazyInitialization() {
		this.contextRunner.withPropertyValues(ownUrl())
			.withInitializer(
					(context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
			.withUserConfiguration(HandlerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(HandlerRegistry.class).types()).contains("greet", "report");
			});
	}

	@Test
	void handlerAttributesResolvePlaceholders() {
		this.contextRunner
			.withPropertyValues(ownUrl(), "app.report.cron=0 30 2 * * *", "app.report.zone=Europe/Paris",
					"app.report.timeout=90s")
			.withUserConfiguration(PlaceholderConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(HandlerRegistry.class).find("report").orElseThrow().timeout())
					.isEqualTo(Duration.ofSeconds(90));
				assertThat(context.getBean(JobScheduler.class).names()).containsExactly("report");
				ScheduleInfo info = context.getBean(JobScheduler.class).schedules().get(0);
				assertThat(info.toString()).contains("0 30 2 * * *").contains("Europe/Paris");
			});
	}

	@Test
	void aJobErrorCodeOfAThrownExceptionIsCheckedAtStartUp() {
		this.contextRunner.withPropertyValues(ownUrl())
			.withUserConfiguration(BadCodeConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("Invalid @JobHandler on bean 'badCodeHandlers' method BadCodeHandlers.charge()")
				.hasMessageContaining(PaymentDeclined.class.getName())
				.hasMessageContaining("@JobErrorCode(\"payment declined\")")
				.hasMessageContaining("CATEGORY:SUBCATEGORY"));
	}

	@Test
	void aCronOfDashDisablesTheSchedule() {
		this.contextRunner
			.withPropertyValues(ownUrl(), "app.report.cron=-", "app.report.zone=Europe/Paris", "app.report.timeout=90s")
			.withUserConfiguration(PlaceholderConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(HandlerRegistry.class).types()).contains("report");
				assertThat(context.getBean(JobScheduler.class).names()).isEmpty();
			});
	}

	@Test
	void disabledLeavesNoBeanOfTheQueue() {
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.enabled=false")
			.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(Tracer.class, SimpleTracer::new)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(Arrays.stream(context.getBeanDefinitionNames())
					.map((name) -> context.getType(name).getName())
					.filter((type) -> type.startsWith("dev.jobqueue"))).isEmpty();
			});
	}

	@Test
	void schemaInitializationCanBeLeftToTheOperator() {
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.datasource.initialize-schema=never")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("jobqueue.datasource.initialize-schema=never")
				.hasMessageContaining("dev/jobqueue/sqlite/migration"));
		this.contextRunner.withPropertyValues(ownUrl()).run((context) -> assertThat(context).hasNotFailed());
		this.contextRunner.withPropertyValues(ownUrl(), "jobqueue.datasource.initialize-schema=never")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Configuration(proxyBeanMethods = false)
	static class HandlerConfiguration {

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

	static class Handlers {

		@JobHandler("greet")
		void greet(String name) {
		}

		@JobHandler(value = "report", every = "1h")
		void report() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadCodeConfiguration {

		@Bean
		BadCodeHandlers badCodeHandlers() {
			return new BadCodeHandlers();
		}

	}

	@JobErrorCode("payment declined")
	static class PaymentDeclined extends Exception {

	}

	static class BadCodeHandlers {

		@JobHandler("charge")
		void charge(String order) throws PaymentDeclined {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlaceholderConfiguration {

		@Bean
		PlaceholderHandlers placeholderHandlers() {
			return new PlaceholderHandlers();
		}

	}

	static class PlaceholderHandlers {

		@JobHandler(value = "report", cron = "${app.report.cron}", zone = "${app.report.zone}",
				timeout = "${app.report.timeout}")
		void report() {
		}

	}

}
