package dev.jobqueue.actuate;

import java.nio.file.Path;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.actuate.QueueEndpointAutoConfiguration;
import dev.jobqueue.autoconfigure.actuate.QueueEndpointProperties;
import dev.jobqueue.autoconfigure.actuate.QueueHealthAutoConfiguration;
import dev.jobqueue.autoconfigure.metrics.QueueMetricsAutoConfiguration;
import dev.jobqueue.autoconfigure.observation.QueueObservationAutoConfiguration;
import dev.jobqueue.core.TraceContextSource;
import dev.jobqueue.metrics.QueueMeterListener;
import dev.jobqueue.metrics.QueueMetrics;
import dev.jobqueue.metrics.QueueSnapshotRefresher;
import dev.jobqueue.observation.ObservationRunInterceptor;
import dev.jobqueue.observation.PropagatorTraceContextSource;
import dev.jobqueue.sqlite.SqliteQueueInsights;

import static org.assertj.core.api.Assertions.assertThat;

class ObservabilityAutoConfigurationTests {

	@TempDir
	Path dir;

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(QueueAutoConfiguration.class, QueueEndpointAutoConfiguration.class,
					QueueHealthAutoConfiguration.class, QueueMetricsAutoConfiguration.class,
					QueueObservationAutoConfiguration.class))
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db"),
					"jobqueue.worker.enabled=false");
	}

	@Test
	void defaultsWithActuatorAndAMeterRegistry() {
		runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("management.endpoints.web.exposure.include=jobqueue")
			.run((context) -> assertThat(context).hasSingleBean(SqliteQueueInsights.class)
				.hasSingleBean(QueueEndpoint.class)
				.hasBean("jobqueueHealthContributor")
				.hasSingleBean(QueueSnapshotRefresher.class)
				.hasSingleBean(QueueMetrics.class)
				.hasSingleBean(QueueMeterListener.class)
				.hasSingleBean(ObservationRunInterceptor.class)
				.hasSingleBean(PropagatorTraceContextSource.class));
	}

	@Test
	void endpointHidesValuesByDefaultAndItsWebExtensionComesWithWebExposure() {
		runner().withPropertyValues("management.endpoints.web.exposure.include=jobqueue").run((context) -> {
			assertThat(context).hasSingleBean(QueueEndpointWebExtension.class);
			assertThat(context.getBean(QueueEndpointProperties.class).getShowValues()).isEqualTo(Show.NEVER);
		});
		runner().withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=jobqueue")
			.run((context) -> assertThat(context).hasSingleBean(QueueEndpoint.class)
				.doesNotHaveBean(QueueEndpointWebExtension.class));
	}

	@Test
	void overJmxTheEndpointAnswersWithoutHttpStatusesAndTreatsWhenAuthorizedAsAuthorized() {
		// Upper case: a context runner's environment lacks the lenient enum conversion of
		// a SpringApplication.
		runner()
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=jobqueue",
					"management.endpoint.jobqueue.access=UNRESTRICTED",
					"management.endpoint.jobqueue.show-values=when-authorized")
			.run((context) -> {
				QueueEndpoint endpoint = context.getBean(QueueEndpoint.class);
				long id = context.getBean(JobQueue.class).enqueue(JobRequest.of("email", "ada").dedupKey("k-1"));
				JobDetailView job = (JobDetailView) endpoint.jobs(String.valueOf(id), null, null, null, null);
				assertThat(job.payload().preview()).isEqualTo("\"ada\"");
				assertThat(job.dedupKey()).isEqualTo("k-1");
				assertThat(endpoint.jobs("999999", null, null, null, null)).isNull();
				QueueEndpoint.ActionResult missing = endpoint.act("999999", "cancel");
				assertThat(missing.applied()).isFalse();
				assertThat(missing.message()).startsWith("There is no job 999999");
				assertThat(endpoint.act(String.valueOf(id), "cancel").applied()).isTrue();
				assertThat(endpoint.act(String.valueOf(id), "cancel").message())
					.isEqualTo("Only waiting, pending or running jobs can be cancelled; this one is cancelled");
			});
	}

	@Test
	void aMisspelledShowValuesFailsBindingWithBootsMessage() {
		runner()
			.withPropertyValues("management.endpoints.web.exposure.include=jobqueue",
					"management.endpoint.jobqueue.show-values=sometimes")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Failed to bind properties under 'management.endpoint.jobqueue.show-values' "
						+ "to org.springframework.boot.actuate.endpoint.Show"));
	}

	@Test
	void aUserHealthContributorNamedLikeOursReplacesIt() {
		runner().withBean("jobqueueHealthContributor", HealthIndicator.class, () -> () -> null)
			.run((context) -> assertThat(context).doesNotHaveBean(QueueHealthIndicator.class)
				.hasBean("jobqueueHealthContributor"));
	}

	@Test
	void endpointBacksOffWhenNotExposed() {
		runner().run((context) -> assertThat(context).doesNotHaveBean(QueueEndpoint.class)
			.hasBean("jobqueueHealthContributor"));
	}

	@Test
	void noActuatorNoEndpointNorHealthIndicator() {
		runner().withClassLoader(new FilteredClassLoader(Endpoint.class, HealthIndicator.class))
			.withPropertyValues("management.endpoints.web.exposure.include=jobqueue")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(QueueEndpoint.class)
				.doesNotHaveBean(QueueHealthIndicator.class));
	}

	@Test
	void healthIndicatorCanBeDisabled() {
		runner().withPropertyValues("management.health.jobqueue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(QueueHealthIndicator.class));
	}

	@Test
	void noMeterRegistryNoMeters() {
		runner().run((context) -> assertThat(context).doesNotHaveBean(QueueMetrics.class)
			.doesNotHaveBean(QueueSnapshotRefresher.class)
			.doesNotHaveBean(QueueMeterListener.class));
	}

	@Test
	void noMicrometerObservationOrTracingOnTheClasspath() {
		runner().withClassLoader(new FilteredClassLoader(ObservationRegistry.class, Tracer.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(ObservationRunInterceptor.class)
				.doesNotHaveBean(TraceContextSource.class));
	}

	@Test
	void userBeansWin() {
		TraceContextSource own = () -> Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
		runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean("jobqueueHealthIndicator", HealthIndicator.class, () -> () -> null)
			.withBean(TraceContextSource.class, () -> own)
			.run((context) -> assertThat(context).doesNotHaveBean(QueueHealthIndicator.class)
				.doesNotHaveBean(PropagatorTraceContextSource.class)
				.getBean(TraceContextSource.class)
				.isSameAs(own));
	}

}
