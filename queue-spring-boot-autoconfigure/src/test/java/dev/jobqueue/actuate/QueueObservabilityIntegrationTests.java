package dev.jobqueue.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.metrics.QueueSnapshotRefresher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configured pieces together in a running application: jobs run by the real
 * worker show up in the Prometheus scrape (worker listener, run observation, snapshot
 * gauges) and in the health endpoint.
 */
@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=jobqueue,health,prometheus",
				"management.endpoint.health.show-details=always", "jobqueue.worker.poll-interval=100ms",
				"jobqueue.observability.refresh-interval=1h" })
@Import(QueueObservabilityIntegrationTests.Handlers.class)
// Closed after the class, not by a JVM shutdown hook: no context (web server, worker,
// housekeeping) is left
// for the test JVM's exit to stop, and a slow close shows here rather than as a killed
// fork.
@DirtiesContext
class QueueObservabilityIntegrationTests {

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) throws IOException {
		Path dir = Files.createTempDirectory("jobqueue-integration");
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	@Autowired
	QueueSnapshotRefresher refresher;

	@Test
	void aScrapeShowsEveryQueueMeterAfterJobsRan() throws Exception {
		long ok = this.queue.enqueue("greet", "ada");
		long bad = this.queue.enqueue("fail", "bob");
		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.queue.find(ok).orElseThrow().status() == JobStatus.SUCCEEDED
					&& this.queue.find(bad).orElseThrow().status() == JobStatus.FAILED);
		this.refresher.refresh();

		String scrape = get("/actuator/prometheus");

		assertThat(scrape).contains("jobqueue_jobs{status=\"succeeded\",type=\"greet\"} 1.0",
				"jobqueue_jobs{status=\"failed\",type=\"fail\"} 1.0", "jobqueue_oldest_age_seconds{status=\"pending\"}",
				"jobqueue_oldest_age_seconds{status=\"running\"}",
				"jobqueue_errors{error_code=\"INVALID_INPUT:INVALID\"} 1.0",
				"jobqueue_errors{error_code=\"OTHER\"} 0.0", "jobqueue_retries{attempts=\"1\"} 1.0",
				"jobqueue_queue_wait_seconds_count{outcome=\"failed\",type=\"fail\"} 1",
				"jobqueue_completed_total{outcome=\"succeeded\",type=\"greet\"} 1.0", "jobqueue_claim_batch_size_count",
				"jobqueue_sqlite_busy_retries_total", "jobqueue_stuck 0.0", "jobqueue_workers 1.0",
				"jobqueue_job_seconds_count{error=\"none\",outcome=\"succeeded\",type=\"greet\"} 1",
				"jobqueue_worker_jobs{state=\"running\"} 0.0", "jobqueue_worker_jobs{state=\"waiting\"} 0.0");
		// One timer per run: the observation's.
		assertThat(scrape).doesNotContain("jobqueue_execution_seconds");
		assertThat(get("/actuator/health/jobqueue")).contains("\"status\":\"UP\"");
		assertThat(get("/actuator/jobqueue")).contains("\"succeeded\":1", "\"thisWorker\":{", "\"claimAhead\":128",
				"\"running\":0", "\"waitingForSlot\":0");
	}

	private String get(String path) throws IOException, InterruptedException {
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build(),
					HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
		return response.body();
	}

	@Configuration(proxyBeanMethods = false)
	static class Handlers {

		@Bean
		Greeter greeter() {
			return new Greeter();
		}

	}

	static class Greeter {

		@JobHandler("greet")
		String greet(String name) {
			return "hello " + name;
		}

		@JobHandler("fail")
		void fail(String name) {
			throw new dev.jobqueue.InvalidJobInputException("no " + name);
		}

	}

}
