package dev.jobqueue.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
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

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.autoconfigure.QueueWorker;
import dev.jobqueue.testing.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A handler that hangs without a heartbeat of its own is stuck after {@code stuck-after},
 * although its worker keeps renewing the lease; one that heartbeats is not. The endpoint
 * lists it with its worker, and health says so.
 */
@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=jobqueue,health",
				"management.endpoint.health.show-details=always", "jobqueue.worker.poll-interval=100ms",
				"jobqueue.worker.lease=1s", "jobqueue.observability.stuck-after=3s",
				"jobqueue.observability.refresh-interval=1h" })
@Import(HungHandlerTests.Handlers.class)
@DirtiesContext
class HungHandlerTests {

	static final CountDownLatch release = new CountDownLatch(1);

	static final CountDownLatch started = new CountDownLatch(2);

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) throws IOException {
		Path dir = Files.createTempDirectory("jobqueue-hung");
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	@Autowired
	MutableClock clock;

	@Autowired
	QueueWorker worker;

	@AfterEach
	void releaseHandlers() {
		release.countDown();
	}

	@Test
	void aHungHandlerIsStuckOnItsWorkerWhileAHeartbeatingOneIsNot() throws Exception {
		long hung = this.queue.enqueue("hang", "x");
		this.queue.enqueue("beat", "x");
		assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
		this.clock.advance(Duration.ofSeconds(4));

		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			String endpoint = get("/actuator/jobqueue");
			assertThat(endpoint).contains("\"stuck\":{\"after\":\"PT3S\",\"count\":1,\"jobs\":[{\"id\":" + hung + ",")
				.contains("\"workerId\":\"" + this.worker.worker().workerId() + "\"");
			String health = get("/actuator/health/jobqueue");
			// Degraded (the configured degraded status), not UP.
			assertThat(health).doesNotContain("\"status\":\"UP\"")
				.contains("\"stuck\":1", "job " + hung + " (hang) on worker " + this.worker.worker().workerId());
		});
	}

	private String get(String path) throws IOException, InterruptedException {
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build(),
					HttpResponse.BodyHandlers.ofString());
		return response.body();
	}

	@Configuration(proxyBeanMethods = false)
	static class Handlers {

		@Bean
		Sleepers sleepers() {
			return new Sleepers();
		}

	}

	static class Sleepers {

		@JobHandler("hang")
		void hang(String input) throws InterruptedException {
			started.countDown();
			release.await();
		}

		@JobHandler("beat")
		void beat(String input, JobContext context) throws InterruptedException {
			started.countDown();
			while (!release.await(50, TimeUnit.MILLISECONDS)) {
				context.heartbeat();
			}
		}

	}

}
