package dev.jobqueue.autoconfigure;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.jobqueue.JobQueue;
import dev.jobqueue.actuate.ObservabilityTestApplication;
import dev.jobqueue.actuate.QueueEndpoint;
import dev.jobqueue.actuate.QueueHealthIndicator;
import dev.jobqueue.metrics.QueueMetrics;
import dev.jobqueue.observation.ObservationRunInterceptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint's, health's, meters' and observation's auto-configurations moved under
 * {@code dev.jobqueue.autoconfigure}: an application that excludes them by their former
 * names still excludes them, as Boot's own moved auto-configurations do
 * ({@code AutoConfiguration.replacements}).
 */
class MovedAutoConfigurationsTests {

	private static final String FORMER_NAMES = "dev.jobqueue.actuate.QueueEndpointAutoConfiguration,"
			+ "dev.jobqueue.actuate.QueueHealthAutoConfiguration,dev.jobqueue.metrics.QueueMetricsAutoConfiguration,"
			+ "dev.jobqueue.observation.QueueObservationAutoConfiguration";

	@TempDir
	Path dir;

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner().withUserConfiguration(ObservabilityTestApplication.class)
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db"),
					"jobqueue.worker.enabled=false", "spring.jmx.enabled=true",
					"management.endpoints.jmx.exposure.include=jobqueue");
	}

	@Test
	void eachIsOnWithoutExclusions() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(QueueEndpoint.class)
				.hasSingleBean(QueueHealthIndicator.class)
				.hasSingleBean(QueueMetrics.class)
				.hasSingleBean(ObservationRunInterceptor.class);
		});
	}

	@Test
	void excludingTheFormerNamesExcludesTheMovedClasses() {
		runner().withPropertyValues("spring.autoconfigure.exclude=" + FORMER_NAMES).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(JobQueue.class)
				.doesNotHaveBean(QueueEndpoint.class)
				.doesNotHaveBean(QueueHealthIndicator.class)
				.doesNotHaveBean(QueueMetrics.class)
				.doesNotHaveBean(ObservationRunInterceptor.class);
		});
	}

}
