package dev.jobqueue.dashboard;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.QueueStorage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flow control on the dashboard, read as HTML: the overview's section of limited types
 * with their held jobs by reason, a blocked key in "Needs attention", and a type's keys
 * page with its blocked keys (the failed job linked, its retry and the cancel of the
 * key's pending jobs one click away) and its busiest keys, each linked to its jobs.
 */
@SpringBootTest(classes = { CrossSiteBrowserTests.UnsecuredApplication.class, DashboardFlowTests.Charges.class },
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "jobqueue.worker.enabled=false", "jobqueue.dashboard.read-only=false" })
@DirtiesContext
class DashboardFlowTests {

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) throws IOException {
		Path dir = Files.createTempDirectory("jobqueue-dashboard-flow");
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	@Autowired
	QueueStorage storage;

	@Autowired
	HandlerRegistry handlers;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void limitedTypesTheirHeldJobsAndABlockedKeyWithItsFailedJobAndActions() throws Exception {
		long blocking = this.queue.enqueue(JobRequest.of("charge", "{}").key("tenant <a&b>"));
		this.queue.enqueue(JobRequest.of("charge", "{}").key("tenant <a&b>"));
		this.queue.enqueue(JobRequest.of("charge", "{}").key("tenant <a&b>"));
		this.queue.enqueue(JobRequest.of("charge", "{}").key("quiet"));
		List<ClaimedJob> claimed = this.storage.jobs()
			.claim(new ClaimRequest("w1", 10, Set.of(), Map.of("charge", 10), Set.of(), Instant.now().plusSeconds(60),
					Map.of(), 10, this.handlers.flowControls()), Instant.now());
		assertThat(claimed).hasSize(2);
		ClaimedJob failing = claimed.stream().filter((job) -> job.id() == blocking).findFirst().orElseThrow();
		this.storage.jobs()
			.complete(List.of(Completion.failed(failing, "PAYMENT:DECLINED", "declined")), "w1",
					Clock.systemUTC().instant());

		String overview = get("/jobqueue").body();
		assertThat(overview).contains("<h2 id=\"flow-title\">Flow control</h2>")
			.contains("<tr data-type=\"charge\"><td>charge</td><td>ordered per key, a failed job blocks its key</td>")
			.contains("<td data-reason=\"blocked\">2</td>")
			.contains("<td data-reason=\"key-limit\">0</td>")
			.contains("<li class=\"warn\" data-blocked=\"charge\">1 key(s) of charge blocked by a failed job, 2 due "
					+ "job(s) behind them: <a href=\"/jobqueue/keys?type=charge\">see its keys</a></li>")
			.contains("<a class=\"keys-link\" href=\"/jobqueue/keys?type=charge\">keys</a>");

		String keys = get("/jobqueue/keys?type=charge").body();
		String keyJobs = "/jobqueue/jobs?type=charge&amp;key=tenant%20%3Ca%26b%3E";
		assertThat(keys).contains("<h1>Keys of charge</h1>")
			.contains("Flow control: ordered per key, a failed job blocks its key.")
			.contains("2 key(s) with pending, running or failed jobs, 1 blocked.")
			.contains("2 by blocked")
			.contains("<table id=\"blocked-keys\">")
			.contains("<tr data-key=\"tenant &lt;a&amp;b&gt;\"><td><a class=\"job-key\" href=\"" + keyJobs
					+ "\">tenant &lt;a&amp;b&gt;</a></td><td><a class=\"blocking-job\" href=\"/jobqueue/jobs/"
					+ blocking + "\">#" + blocking + "</a></td>")
			.contains("href=\"/jobqueue/jobs/" + blocking + "/retry\" data-action=\"retry\">Retry #" + blocking)
			.contains("href=\"/jobqueue/bulk/cancel?status=pending&amp;type=charge&amp;key=tenant%20%3Ca%26b%3E\"")
			.contains("<table id=\"busiest-keys\">")
			.contains("<span class=\"status failed\">blocked</span> by <a href=\"/jobqueue/jobs/" + blocking + "\">")
			.contains("<tr data-key=\"quiet\">");
		String keyList = get(keyJobs.replace("&amp;", "&")).body();
		assertThat(keyList).contains("data-job=\"" + blocking + "\"");

		String other = get("/jobqueue/keys?type=held").body();
		assertThat(other).contains("This process has no flow control for held")
			.contains("No job of this type has a key");
		assertThat(get("/jobqueue/keys").statusCode()).isEqualTo(400);
		assertThat(get("/jobqueue/keys?type=" + "t".repeat(300)).statusCode()).isEqualTo(400);

		assertThat(this.queue.retry(blocking)).isTrue();
		assertThat(get("/jobqueue").body()).doesNotContain("data-blocked=")
			.contains("<td data-reason=\"blocked\">0</td>");
	}

	private HttpResponse<String> get(String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	static class Charges {

		@Bean
		OrderedCharges orderedCharges() {
			return new OrderedCharges();
		}

	}

	static class OrderedCharges {

		@JobHandler(value = "charge", ordered = true)
		void charge(String payload) {
		}

	}

}
