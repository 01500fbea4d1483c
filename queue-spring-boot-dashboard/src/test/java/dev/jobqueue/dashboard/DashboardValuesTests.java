package dev.jobqueue.dashboard;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.QueueInsights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard shows values as the {@code jobqueue} endpoint does, from the same setting
 * ({@code management.endpoint.jobqueue.show-values}): a real worker runs a job whose
 * payload, dedup key and result hold the marker, one whose error quotes it, and one that
 * reports progress with it in its message; every page of the dashboard is then read, and
 * the endpoint's answer for the job in progress.
 */
class DashboardValuesTests {

	static final String MARKER = "S3CR3T-MARKER-d4b1";

	/** The default, {@code never}: no trace of the marker on any page. */
	@Nested
	@SpringBootTest(classes = ValuesApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "jobqueue.dashboard.enabled=true", "jobqueue.dashboard.read-only=false",
					"jobqueue.worker.poll-interval=100ms", "management.endpoints.web.exposure.include=jobqueue" })
	class Never extends RunJobs {

		@DynamicPropertySource
		static void queueFile(DynamicPropertyRegistry registry) {
			RunJobs.queueFile(registry, "never");
		}

		@Test
		void noPageShowsAnyValue() throws Exception {
			for (String path : pages()) {
				assertThat(get(path)).as(path).doesNotContain(MARKER);
			}
			assertThat(get("/jobqueue/jobs/" + this.echo)).contains("hidden (management.endpoint.jobqueue.show-values)")
				.contains("<table id=\"steps\">")
				.contains("<td>echo-step</td>");
			assertThat(get("/jobqueue/jobs/" + this.slow)).contains("id=\"progress-" + this.slow + "\"");
			assertThat(get("/actuator/jobqueue/" + this.slow)).doesNotContain(MARKER)
				.contains("\"message\":\"******\"");
		}

	}

	/**
	 * {@code when-authorized} without Spring Security: nobody is signed in, so nobody
	 * sees values.
	 */
	@Nested
	@SpringBootTest(classes = ValuesApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "jobqueue.dashboard.enabled=true", "jobqueue.dashboard.read-only=false",
					"jobqueue.worker.poll-interval=100ms", "management.endpoint.jobqueue.show-values=when-authorized" })
	class WhenAuthorizedWithoutSecurity extends RunJobs {

		@DynamicPropertySource
		static void queueFile(DynamicPropertyRegistry registry) {
			RunJobs.queueFile(registry, "when-authorized");
		}

		@Test
		void anonymousVisitorsSeeNoValue() throws Exception {
			for (String path : pages()) {
				assertThat(get(path)).as(path).doesNotContain(MARKER);
			}
		}

	}

	/** {@code always}: the same pages show the values. */
	@Nested
	@SpringBootTest(classes = ValuesApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "jobqueue.dashboard.enabled=true", "jobqueue.dashboard.read-only=false",
					"jobqueue.worker.poll-interval=100ms", "management.endpoint.jobqueue.show-values=always",
					"management.endpoints.web.exposure.include=jobqueue" })
	class Always extends RunJobs {

		@DynamicPropertySource
		static void queueFile(DynamicPropertyRegistry registry) {
			RunJobs.queueFile(registry, "always");
		}

		@Test
		void valuesAreShown() throws Exception {
			String echo = get("/jobqueue/jobs/" + this.echo);
			assertThat(echo).contains("dedup-" + MARKER).contains("id=\"payload\">&quot;" + MARKER);
			assertThat(echo).contains("id=\"result\">&quot;" + MARKER);
			assertThat(echo).contains("<td>echo-step</td>").contains("<code>&quot;" + MARKER);
			assertThat(get("/jobqueue/jobs/" + this.strict)).contains(MARKER);
			assertThat(get("/jobqueue/jobs/" + this.slow)).contains("progress-message\">step of " + MARKER);
			assertThat(get("/jobqueue/")).contains("progress-message\">step of " + MARKER);
			assertThat(get("/actuator/jobqueue/" + this.slow)).contains("\"message\":\"step of " + MARKER);
		}

	}

	abstract static class RunJobs {

		@LocalServerPort
		int port;

		@Autowired
		JobQueue queue;

		@Autowired
		QueueInsights insights;

		@Autowired
		MarkerJobs jobs;

		long echo;

		long strict;

		long slow;

		static void queueFile(DynamicPropertyRegistry registry, String name) {
			try {
				Path dir = Files.createTempDirectory("jobqueue-dashboard-values-" + name);
				registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}

		@BeforeEach
		void runJobsThatCarryTheMarker() {
			this.echo = this.queue.enqueue(JobRequest.of("echo", MARKER).dedupKey("dedup-" + MARKER));
			this.strict = this.queue.enqueue(JobRequest.of("strict", Map.of("width", MARKER)).maxAttempts(1));
			this.slow = this.queue.enqueue("slow", MARKER);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> this.queue.find(this.echo).orElseThrow().status() == JobStatus.SUCCEEDED
						&& this.queue.find(this.strict).orElseThrow().status() == JobStatus.FAILED);
			// Jackson's message quotes the payload: the error detail holds the marker.
			assertThat(this.queue.find(this.strict).orElseThrow().errorDetail()).contains(MARKER);
			await().atMost(Duration.ofSeconds(20)).until(() -> {
				QueueInsights.JobDetail detail = this.insights.job(this.slow, 0).orElseThrow();
				return detail.progress() != null && detail.progress().message().contains(MARKER);
			});
		}

		@AfterEach
		void letTheSlowJobFinish() {
			this.jobs.release.countDown();
		}

		/** Every page a visitor can reach with these jobs in the queue. */
		List<String> pages() {
			List<String> pages = new ArrayList<>(List.of("/jobqueue/", "/jobqueue/?window=day", "/jobqueue/jobs"));
			for (JobStatus status : JobStatus.values()) {
				pages.add("/jobqueue/jobs?status=" + status.dbValue());
			}
			for (long id : new long[] { this.echo, this.strict, this.slow }) {
				pages.add("/jobqueue/jobs/" + id);
			}
			pages.add("/jobqueue/jobs/" + this.strict + "/retry");
			pages.add("/jobqueue/jobs/" + this.slow + "/cancel");
			pages.add("/jobqueue/jobs?type=slow");
			return pages;
		}

		String get(String path) throws IOException, InterruptedException {
			HttpResponse<String> response = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build(),
						HttpResponse.BodyHandlers.ofString());
			assertThat(response.statusCode()).as(path).isEqualTo(200);
			return response.body();
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
	static class ValuesApplication {

		@Bean
		MarkerJobs markerJobs() {
			return new MarkerJobs();
		}

	}

	static class MarkerJobs {

		final CountDownLatch release = new CountDownLatch(1);

		@JobHandler("echo")
		String echo(String text, JobContext context) {
			return context.step("echo-step", String.class, () -> text);
		}

		@JobHandler("strict")
		void strict(Size size) {
		}

		/**
		 * Reports progress with the payload in its message until the test lets it finish
		 * (at most 60 s).
		 */
		@JobHandler("slow")
		void slow(String text, JobContext context) throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			for (long step = 1; System.nanoTime() < deadline; step++) {
				if (!context.progress(step, 1000, "step of " + text)) {
					return;
				}
				if (this.release.await(100, TimeUnit.MILLISECONDS)) {
					return;
				}
			}
		}

	}

	record Size(int width) {
	}

}
