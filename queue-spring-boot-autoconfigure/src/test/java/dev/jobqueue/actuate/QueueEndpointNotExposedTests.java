package dev.jobqueue.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the endpoint not listed in {@code management.endpoints.web.exposure.include},
 * neither its reads nor its write operations are reachable over HTTP, and a job stays as
 * it was.
 */
@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "jobqueue.worker.enabled=false", "management.endpoints.web.exposure.include=health" })
// Closed after the class, not by a JVM shutdown hook: no context (web server, worker,
// housekeeping) is left
// for the test JVM's exit to stop, and a slow close shows here rather than as a killed
// fork.
@DirtiesContext
class QueueEndpointNotExposedTests {

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) throws IOException {
		Path dir = Files.createTempDirectory("jobqueue-not-exposed");
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	@Autowired
	ApplicationContext context;

	@Test
	void writeAndReadOperationsAreNotReachable() throws Exception {
		long id = this.queue.enqueue("email", "hello");
		HttpClient http = HttpClient.newHttpClient();

		HttpResponse<String> cancel = http.send(HttpRequest.newBuilder(uri("/actuator/jobqueue/" + id + "/cancel"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{}"))
			.build(), HttpResponse.BodyHandlers.ofString());
		HttpResponse<String> read = http.send(HttpRequest.newBuilder(uri("/actuator/jobqueue")).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		HttpResponse<String> health = http.send(HttpRequest.newBuilder(uri("/actuator/health")).GET().build(),
				HttpResponse.BodyHandlers.ofString());

		assertThat(cancel.statusCode()).isEqualTo(404);
		assertThat(read.statusCode()).isEqualTo(404);
		assertThat(health.statusCode()).isEqualTo(200);
		assertThat(this.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		assertThat(this.context.getBeanNamesForType(QueueEndpoint.class)).isEmpty();
		assertThat(this.context.getBeanNamesForType(QueueHealthIndicator.class))
			.containsExactly("jobqueueHealthContributor");
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

}
