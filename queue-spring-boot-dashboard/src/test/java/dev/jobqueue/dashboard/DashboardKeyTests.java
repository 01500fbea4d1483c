package dev.jobqueue.dashboard;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job's key on the dashboard: on the job's page, in every job list (linked to the key's
 * jobs), as a list filter that a bulk action keeps, and found by search.
 */
@SpringBootTest(classes = CrossSiteBrowserTests.UnsecuredApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "jobqueue.worker.enabled=false", "jobqueue.dashboard.read-only=false" })
@DirtiesContext
class DashboardKeyTests {

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) throws IOException {
		registry.add("jobqueue.datasource.url", () -> {
			try {
				return "jdbc:sqlite:" + Files.createTempDirectory("jobqueue-dashboard-key").resolve("queue.db");
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void aKeyIsShownFilteredSearchedAndKeptByABulkAction() throws Exception {
		long first = this.queue.enqueue(JobRequest.of(BrowserTestJobs.HELD, "{}").key("tenant <a&b>"));
		long other = this.queue.enqueue(JobRequest.of(BrowserTestJobs.HELD, "{}").key("tenant-c"));
		long plain = this.queue.enqueue(BrowserTestJobs.HELD, "{}");
		long second = this.queue.enqueue(JobRequest.of(BrowserTestJobs.HELD, "{}").key("tenant <a&b>"));
		String keyLink = "<a href=\"/jobqueue/jobs?key=tenant%20%3Ca%26b%3E\">tenant &lt;a&amp;b&gt;</a>";

		assertThat(get("/jobqueue/jobs/" + first).body()).contains("<dt>Key</dt><dd>tenant &lt;a&amp;b&gt;</dd>");
		assertThat(get("/jobqueue/jobs/" + plain).body()).contains("<dt>Key</dt><dd>none</dd>");
		String all = get("/jobqueue/jobs").body();
		assertThat(all).contains("<th>Key</th>").contains(keyLink).contains("tenant-c");

		String filtered = get("/jobqueue/jobs?key=tenant%20%3Ca%26b%3E").body();
		assertThat(filtered).contains("data-job=\"" + first + "\"")
			.contains("data-job=\"" + second + "\"")
			.doesNotContain("data-job=\"" + other + "\"")
			.doesNotContain("data-job=\"" + plain + "\"")
			.contains("name=\"key\" autocomplete=\"off\" value=\"tenant &lt;a&amp;b&gt;\"")
			.contains("/jobqueue/bulk/cancel?key=tenant%20%3Ca%26b%3E");
		assertThat(get("/jobqueue/jobs?key=" + "k".repeat(201)).statusCode()).isEqualTo(400);

		String confirm = get("/jobqueue/bulk/cancel?key=tenant%20%3Ca%26b%3E").body();
		assertThat(confirm).contains("2 jobs");
		HttpResponse<String> cancelled = send("POST", "/jobqueue/bulk/cancel?key=tenant%20%3Ca%26b%3E");
		assertThat(cancelled.statusCode()).isEqualTo(200);
		assertThat(this.queue.find(first).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.queue.find(second).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.queue.find(other).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		assertThat(this.queue.find(plain).orElseThrow().status()).isEqualTo(JobStatus.PENDING);

		String found = get("/jobqueue/search?q=tenant-c").body();
		assertThat(found).contains("data-job=\"" + other + "\"").contains("<td>key</td>");
	}

	private HttpResponse<String> get(String path) throws Exception {
		return send("GET", path);
	}

	private HttpResponse<String> send(String method, String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.header("Origin", "http://localhost:" + this.port)
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
