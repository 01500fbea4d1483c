package dev.jobqueue.actuate;

import java.nio.file.Path;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.jobqueue.FanOut;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.actuate.QueueEndpointAutoConfiguration;
import dev.jobqueue.autoconfigure.metrics.QueueMetricsAutoConfiguration;
import dev.jobqueue.metrics.QueueMetrics;
import dev.jobqueue.metrics.QueueSnapshotRefresher;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint shows a job's chain and what it waits for, counts waiting jobs, cancels a
 * chain; the meters count waiting jobs.
 */
class QueueEndpointChainTests {

	@TempDir
	Path dir;

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(QueueAutoConfiguration.class, QueueEndpointAutoConfiguration.class,
					QueueMetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db"),
					"jobqueue.worker.enabled=false", "spring.jmx.enabled=true",
					"management.endpoints.jmx.exposure.include=jobqueue",
					"management.endpoint.jobqueue.access=UNRESTRICTED");
	}

	@Test
	void aJobShowsItsChainWhatItWaitsForAndWhatWaitsForItAndWaitingJobsAreCounted() {
		runner().run((context) -> {
			QueueEndpoint endpoint = context.getBean(QueueEndpoint.class);
			JobQueue queue = context.getBean(JobQueue.class);
			FanOut fanOut = queue.enqueueFanOut(List.of(JobRequest.of("row", 1), JobRequest.of("row", 2)),
					JobRequest.of("summary", "all"));
			long report = queue.enqueue(JobRequest.of("report", "after summary").after(fanOut.joinId()));

			JobDetailView join = (JobDetailView) endpoint.jobs(String.valueOf(fanOut.joinId()), null, null, null, null);
			assertThat(join.job().status()).isEqualTo("waiting");
			assertThat(join.chain().chainId()).isEqualTo(fanOut.chainId());
			assertThat(join.chain().chainIndex()).isEqualTo(1);
			assertThat(join.chain().length()).isEqualTo(3);
			assertThat(join.chain().steps()).extracting(JobView::type).containsExactly("row", "row", "summary");
			assertThat(join.dependencies().unfinished()).isEqualTo(2);
			assertThat(join.dependencies().onDependencyFailure()).isEqualTo("cancel");
			assertThat(join.dependencies().waitsFor()).extracting(JobView::id)
				.containsExactlyElementsOf(fanOut.childIds());
			assertThat(join.dependencies().waitedBy()).extracting(JobView::id).containsExactly(report);

			JobDetailView plain = (JobDetailView) endpoint.jobs(String.valueOf(queue.enqueue("plain", 1)), null, null,
					null, null);
			assertThat(plain.chain()).isNull();
			assertThat(plain.dependencies()).isNull();

			// Boot's metrics auto-configuration binds meter binders; this context has
			// none.
			MeterRegistry registry = new SimpleMeterRegistry();
			context.getBean(QueueMetrics.class).bindTo(registry);
			context.getBean(QueueSnapshotRefresher.class).refresh();
			assertThat(registry.get("jobqueue.jobs").tags("status", "waiting", "type", "summary").gauge().value())
				.isEqualTo(1);
			assertThat(registry.get("jobqueue.jobs").tags("status", "waiting", "type", "report").gauge().value())
				.isEqualTo(1);

			QueueEndpoint.ActionResult cancelled = endpoint.act(String.valueOf(fanOut.chainId()), "cancel-chain");
			assertThat(cancelled.applied()).isTrue();
			assertThat(cancelled.message()).isEqualTo("3 unfinished step(s) cancelled");
			assertThat(queue.find(report).orElseThrow().errorCode()).isEqualTo("DEPENDENCY_FAILED:CANCELLED");
			assertThat(endpoint.act(String.valueOf(fanOut.chainId()), "cancel-chain").applied()).isFalse();
			assertThat(endpoint.act("999999", "cancel-chain").message()).startsWith("There is no chain 999999");
		});
	}

}
