package dev.jobqueue.dashboard;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.sqlite.SqliteStorage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the dashboard and the endpoint say to input and states that are not the happy
 * path: a {@code ?done=} notice only for what happened; one bound on type names for
 * enqueue, the endpoint's pause and the dashboard, with the same words; a page in words
 * (503) while the database cannot be read. The last test closes the queue's connection
 * pool.
 */
@SpringBootTest(classes = CrossSiteBrowserTests.UnsecuredApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "jobqueue.worker.enabled=false")
@DirtiesContext
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardBadInputTests {

	private static Path queueFile;

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) throws IOException {
		queueFile = Files.createTempDirectory("jobqueue-dashboard-bad-input").resolve("queue.db");
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + queueFile);
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	@Autowired
	SqliteStorage storage;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	@Order(1)
	void aDoneNoticeShowsOnlyWhenTheActionHappened() throws Exception {
		long id = this.queue.enqueue(BrowserTestJobs.HELD, "{}");
		assertThat(send("GET", "/jobqueue/jobs/" + id + "?done=retry").body()).doesNotContain("id=\"notice\"");
		assertThat(send("GET", "/jobqueue/jobs/" + id + "?done=cancel").body()).doesNotContain("id=\"notice\"");

		HttpResponse<String> cancelled = send("POST", "/jobqueue/jobs/" + id + "/cancel");
		assertThat(cancelled.statusCode()).isEqualTo(303);
		String location = cancelled.headers().firstValue("Location").orElseThrow();
		assertThat(send("GET", location).body()).contains("id=\"notice\"").contains("Cancel requested.");
		assertThat(send("GET", "/jobqueue/jobs/" + id + "?done=retry").body()).doesNotContain("id=\"notice\"");
	}

	@Test
	@Order(2)
	void oneBoundOnTypeNamesEverywhereWithTheSameWords() throws Exception {
		String longest = "t".repeat(EnqueueLimits.MAX_TYPE_LENGTH);
		String tooLong = "t".repeat(EnqueueLimits.MAX_TYPE_LENGTH + 1);
		String rule = "a type has at most " + EnqueueLimits.MAX_TYPE_LENGTH + " characters";
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(() -> this.queue.enqueue(tooLong, "{}"))
			.withMessageContaining(rule);
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(() -> this.queue.pause(tooLong))
			.withMessageContaining(rule);

		HttpResponse<String> endpoint = send("POST", "/actuator/jobqueue/" + tooLong + "/pause");
		assertThat(endpoint.statusCode()).isEqualTo(400);
		assertThat(endpoint.body()).contains(rule);
		HttpResponse<String> dashboard = send("POST", "/jobqueue/types/pause?type=" + tooLong);
		assertThat(dashboard.statusCode()).isEqualTo(400);
		assertThat(dashboard.body()).contains(rule);
		assertThat(send("GET", "/jobqueue/jobs?type=" + tooLong).statusCode()).isEqualTo(400);
		assertThat(this.queue.pausedTypes()).isEmpty();

		// The longest type is paused by the endpoint and resumed by the dashboard.
		assertThat(send("POST", "/actuator/jobqueue/" + longest + "/pause").statusCode()).isEqualTo(200);
		assertThat(send("POST", "/jobqueue/types/resume?type=" + URLEncoder.encode(longest, StandardCharsets.UTF_8))
			.statusCode()).isEqualTo(303);
		assertThat(this.queue.pausedTypes()).isEmpty();
	}

	@Test
	@Order(2)
	void headIsAnsweredAsGetWithoutItsBodyAndOptionsWithTheMethodsTaken() throws Exception {
		long id = this.queue.enqueue(BrowserTestJobs.HELD, "{}");
		for (String page : new String[] { "/jobqueue", "/jobqueue/", "/jobqueue/jobs?status=pending",
				"/jobqueue/jobs/" + id, "/jobqueue/jobs/" + id + "/cancel", "/jobqueue/search?q=held",
				"/jobqueue/assets/dashboard.css" }) {
			HttpResponse<String> get = send("GET", page);
			HttpResponse<String> head = send("HEAD", page);
			assertThat(head.statusCode()).as(page).isEqualTo(200).isEqualTo(get.statusCode());
			assertThat(head.headers().firstValue("Content-Type")).as(page)
				.isEqualTo(get.headers().firstValue("Content-Type"));
			assertThat(head.body()).as(page).isEmpty();
			HttpResponse<String> options = send("OPTIONS", page);
			assertThat(options.statusCode()).as(page).isEqualTo(200);
			assertThat(options.headers().firstValue("Allow").orElseThrow().split(",\\s*")).as(page)
				.contains("GET", "HEAD", "OPTIONS");
		}
		assertThat(send("OPTIONS", "/jobqueue/jobs/" + id + "/cancel").headers().firstValue("Allow").orElseThrow())
			.contains("POST");
		assertThat(send("OPTIONS", "/jobqueue/jobs").headers().firstValue("Allow").orElseThrow())
			.doesNotContain("POST");
		assertThat(send("HEAD", "/jobqueue/no-such-page").statusCode()).isEqualTo(404);
		assertThat(this.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
	}

	@Test
	@Order(3)
	void whileTheDatabaseCannotBeReadTheDashboardAnswersAPageInWords() throws Exception {
		assertThat(send("GET", "/jobqueue/").statusCode()).isEqualTo(200);
		// The queue's connection pool goes away, as when the database stops answering.
		((AutoCloseable) this.storage.database().dataSource()).close();
		HttpResponse<String> overview = send("GET", "/jobqueue/");
		assertThat(overview.statusCode()).isEqualTo(503);
		assertThat(overview.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> type.startsWith("text/html"));
		assertThat(overview.body()).contains("The queue cannot be read right now")
			.contains("/actuator/health/jobqueue")
			.doesNotContain(queueFile.toString());
	}

	private HttpResponse<String> send(String method, String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
