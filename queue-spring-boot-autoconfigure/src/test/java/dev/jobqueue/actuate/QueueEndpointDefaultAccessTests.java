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
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exposed with no access settings, as Boot's own endpoints: the state (and a type's keys)
 * can be read, but no write operation (retry, cancel, pause, resume) is reachable.
 */
@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "jobqueue.worker.enabled=false", "management.endpoints.web.exposure.include=jobqueue" })
// Closed after the class, not by a JVM shutdown hook: no context (web server, worker,
// housekeeping) is left
// for the test JVM's exit to stop, and a slow close shows here rather than as a killed
// fork.
@DirtiesContext
class QueueEndpointDefaultAccessTests {

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) throws IOException {
		Path dir = Files.createTempDirectory("jobqueue-default-access");
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	@Test
	void readsWorkAndWritesAreNotMapped() throws Exception {
		long id = this.queue.enqueue("email", "hello");
		HttpClient http = HttpClient.newHttpClient();

		HttpResponse<String> read = http.send(HttpRequest.newBuilder(uri("/actuator/jobqueue/" + id)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		HttpResponse<String> keys = http.send(
				HttpRequest.newBuilder(uri("/actuator/jobqueue/keys/email")).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		HttpResponse<String> cancel = post(http, "/actuator/jobqueue/" + id + "/cancel");
		HttpResponse<String> pause = post(http, "/actuator/jobqueue/email/pause");

		assertThat(read.statusCode()).isEqualTo(200);
		assertThat(keys.statusCode()).as("a type's keys are a read").isEqualTo(200);
		assertThat(cancel.statusCode()).isIn(404, 405);
		assertThat(pause.statusCode()).isIn(404, 405);
		assertThat(this.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		assertThat(this.queue.pausedTypes()).isEmpty();
	}

	private HttpResponse<String> post(HttpClient http, String path) throws Exception {
		return http.send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{}"))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

}
