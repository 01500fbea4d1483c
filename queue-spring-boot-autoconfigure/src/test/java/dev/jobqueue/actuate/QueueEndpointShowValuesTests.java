package dev.jobqueue.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.Job;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Values (payloads, results, error details, event details, dedup keys) in every answer of
 * the endpoint, after a real worker ran a job that succeeded with the marker as its
 * result, and one whose payload Jackson refused, quoting the marker in its error.
 */
class QueueEndpointShowValuesTests {

	static final String MARKER = "S3CR3T-MARKER-7f1c";

	/** A frame of the failing handler's stack, as a stack trace prints it. */
	static final String THROWING_FRAME = "QueueEndpointShowValuesTests$MarkerJobs.thrower(";

	static final List<String> READS = List.of("/actuator/jobqueue", "/actuator/jobqueue/all",
			"/actuator/jobqueue/succeeded", "/actuator/jobqueue/failed", "/actuator/jobqueue/all?type=strict",
			"/actuator/jobqueue/schedules", "/actuator/jobqueue/paused");

	/** The default, {@code never}: no trace of the marker anywhere. */
	@Nested
	@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "management.endpoints.web.exposure.include=jobqueue,health",
					"management.endpoint.health.show-details=always", "jobqueue.worker.poll-interval=100ms" })
	@Import(Handlers.class)
	class Never extends RunJobs {

		@DynamicPropertySource
		static void queueFile(DynamicPropertyRegistry registry) {
			RunJobs.queueFile(registry, "never");
		}

		@Test
		void noAnswerShowsAnyValue() throws Exception {
			for (String path : READS) {
				assertThat(get(path)).as(path).doesNotContain(MARKER);
			}
			assertThat(get("/actuator/jobqueue/" + this.echo)).doesNotContain(MARKER)
				.contains("\"dedupKey\":\"******\"", "\"preview\":null")
				.contains("\"steps\":[{\"name\":\"echo-step\",\"result\":{\"length\":" + (MARKER.length() + 7)
						+ ",\"preview\":null");
			assertThat(get("/actuator/jobqueue/" + this.strict)).doesNotContain(MARKER)
				.contains("\"errorDetail\":\"******\"", "\"preview\":null");
			assertThat(get("/actuator/jobqueue/" + this.thrower)).doesNotContain(MARKER)
				.doesNotContain(THROWING_FRAME)
				.contains("\"errorTrace\":\"******\"");
			assertThat(get("/actuator/health")).doesNotContain(MARKER);
		}

		@Test
		void aSearchCannotProbeValues() throws Exception {
			for (String probe : List.of(MARKER, "S3CR3T", "dedup-" + MARKER)) {
				assertThat(get("/actuator/jobqueue/search?q=" + probe)).as(probe)
					.contains("\"matches\":[]", "\"valuesSearched\":false");
			}
			// What is no value is still found: the error code.
			assertThat(get("/actuator/jobqueue/search?q=INVALID_INPUT")).contains("\"id\":" + this.strict);
		}

	}

	/**
	 * {@code when-authorized} with no Spring Security: nobody is authenticated, so nobody
	 * sees values.
	 */
	@Nested
	@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "management.endpoints.web.exposure.include=jobqueue",
					"management.endpoint.jobqueue.show-values=when-authorized", "jobqueue.worker.poll-interval=100ms" })
	@Import(Handlers.class)
	class WhenAuthorizedWithoutSecurity extends RunJobs {

		@DynamicPropertySource
		static void queueFile(DynamicPropertyRegistry registry) {
			RunJobs.queueFile(registry, "when-authorized");
		}

		@Test
		void anonymousCallersSeeNoValue() throws Exception {
			assertThat(get("/actuator/jobqueue/" + this.strict)).doesNotContain(MARKER);
			assertThat(get("/actuator/jobqueue/" + this.echo)).doesNotContain(MARKER);
		}

	}

	/** {@code always}: values are shown, the payload cut to the preview length. */
	@Nested
	@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "management.endpoints.web.exposure.include=jobqueue",
					"management.endpoint.jobqueue.show-values=always", "jobqueue.observability.payload-preview=12",
					"jobqueue.worker.poll-interval=100ms" })
	@Import(Handlers.class)
	class Always extends RunJobs {

		@DynamicPropertySource
		static void queueFile(DynamicPropertyRegistry registry) {
			RunJobs.queueFile(registry, "always");
		}

		@Test
		void valuesAreShownWithinThePreviewLength() throws Exception {
			String echo = get("/actuator/jobqueue/" + this.echo);
			assertThat(echo).contains("\"dedupKey\":\"dedup-" + MARKER + "\"",
					"\"preview\":\"\\\"" + MARKER.substring(0, 11));
			assertThat(echo).doesNotContain("\"preview\":\"\\\"" + MARKER + "\\\"\"");
			assertThat(echo).contains("\"steps\":[{\"name\":\"echo-step\"", "\"preview\":\"\\\"step S3CR3T\"");
			assertThat(get("/actuator/jobqueue/" + this.strict)).contains("\"errorDetail\":\"").contains(MARKER);
			// The failed attempt keeps the handler's stack trace, down to the frame that
			// threw.
			assertThat(get("/actuator/jobqueue/" + this.thrower))
				.contains("\"errorTrace\":\"java.lang.IllegalStateException")
				.contains(THROWING_FRAME);
		}

		@Test
		void aSearchFindsValues() throws Exception {
			String found = get("/actuator/jobqueue/search?q=" + MARKER);
			assertThat(found).contains("\"valuesSearched\":true", "\"id\":" + this.echo, "\"id\":" + this.strict,
					"\"id\":" + this.thrower);
		}

	}

	abstract static class RunJobs {

		@LocalServerPort
		int port;

		@Autowired
		JobQueue queue;

		long echo;

		long strict;

		long thrower;

		static void queueFile(DynamicPropertyRegistry registry, String name) {
			try {
				Path dir = Files.createTempDirectory("jobqueue-show-values-" + name);
				registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}

		@BeforeEach
		void runAJobThatSucceedsAndOneWhosePayloadIsRefused() {
			this.echo = this.queue.enqueue(JobRequest.of("echo", MARKER).dedupKey("dedup-" + MARKER));
			this.strict = this.queue.enqueue("strict", Map.of("width", MARKER));
			this.thrower = this.queue.enqueue("thrower", MARKER);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> this.queue.find(this.echo).orElseThrow().status() == JobStatus.SUCCEEDED
						&& this.queue.find(this.strict).orElseThrow().status() == JobStatus.FAILED
						&& this.queue.find(this.thrower).orElseThrow().status() == JobStatus.FAILED);
			Job refused = this.queue.find(this.strict).orElseThrow();
			// What the endpoint must not show: Jackson's message quotes the payload.
			assertThat(refused.errorCode()).startsWith("INVALID_INPUT");
			assertThat(refused.errorDetail()).contains(MARKER);
		}

		String get(String path) throws IOException, InterruptedException {
			HttpResponse<String> response = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build(),
						HttpResponse.BodyHandlers.ofString());
			assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
			return response.body();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Handlers {

		@Bean
		MarkerJobs markerJobs() {
			return new MarkerJobs();
		}

	}

	static class MarkerJobs {

		@JobHandler("echo")
		String echo(String text, JobContext context) {
			return context.step("echo-step", String.class, () -> "step " + text).substring("step ".length());
		}

		@JobHandler("strict")
		void strict(Size size) {
		}

		@JobHandler(value = "thrower", maxAttempts = 1)
		void thrower(String text) {
			throw new IllegalStateException("refused " + text);
		}

	}

	record Size(int width) {
	}

}
