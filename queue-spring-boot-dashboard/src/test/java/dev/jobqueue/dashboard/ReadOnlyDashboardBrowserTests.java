package dev.jobqueue.dashboard;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

import dev.jobqueue.FanOut;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard with its defaults (read-only, values hidden:
 * {@code management.endpoint.jobqueue.show-values=never}), seen by the signed-in
 * operator: no action buttons anywhere, action URLs refused with 403 by the dashboard
 * itself (a POST carries the session's CSRF token, so the security filters let it
 * through) and nothing changed, payloads and error details not shown. A stranger is sent
 * to the sign-in form.
 */
@Tag("browser")
@SpringBootTest(classes = BrowserTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "jobqueue.dashboard.read-only=true", "management.endpoint.jobqueue.show-values=never" })
@DirtiesContext
class ReadOnlyDashboardBrowserTests extends SqliteFileBrowserTests {

	private static final HttpClient HTTP = HttpClient.newHttpClient();

	@LocalServerPort
	int port;

	@Autowired
	JobQueue jobQueue;

	@Autowired
	BrowserTestJobs.Exports exports;

	@Test
	void aReadOnlyDashboardHasNoActionsAndRefusesTheirAddresses() throws Exception {
		this.exports.failing.set(true);
		long id = this.jobQueue
			.enqueue(JobRequest.of("export", new BrowserTestJobs.ExportRequest("secret-customer")).maxAttempts(1));
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.jobQueue.find(id).orElseThrow().status() == JobStatus.FAILED);

		assertThat(strangerGet("/").statusCode()).isEqualTo(302);
		assertThat(strangerGet("/").headers().firstValue("Location"))
			.hasValueSatisfying((location) -> assertThat(location).endsWith("/login"));
		browser.signIn(url("/"), Browser.OPERATOR, Browser.OPERATOR_PASSWORD);
		browser.clearConsole();
		assertThat(browser.text("#mode")).isEqualTo("read-only");
		assertThat(browser.text("#types")).contains("export");
		// The only form is the search, which reads.
		assertThat(browser.count("[data-action], form[method='post'], form:not([role='search']) button")).isZero();
		assertThat(browser.attribute("form[role='search']", "method")).isEqualTo("get");
		browser.open(url("/jobs/" + id));
		assertThat(browser.text("#job-status")).isEqualTo("failed");
		assertThat(browser.count("[data-action], form[method='post'], #action-retry")).isZero();
		assertThat(browser.text("#payload")).contains("hidden").doesNotContain("secret-customer");
		assertThat(browser.text("#error-detail")).contains("hidden").doesNotContain("503");
		assertThat(browser.text("#error-code")).isEqualTo("DEPENDENCY:EXPORT_API");
		assertThat(browser.consoleProblems()).isEmpty();

		browser.open(url("/jobs?status=failed&type=export"));
		assertThat(browser.count("#bulk-actions, #bulk-retry")).isZero();
		// A search cannot probe what the dashboard hides.
		browser.open(url("/search?q=secret-customer"));
		assertThat(browser.count("#search-results")).isZero();
		assertThat(browser.text("#search-scope")).contains("error codes only", "not searched");
		browser.open(url("/search?q=DEPENDENCY:EXPORT_API"));
		assertThat(browser.count("#search-results tr[data-job='" + id + "']")).isEqualTo(1);

		for (String path : new String[] { "/jobs/" + id + "/retry", "/jobs/" + id + "/cancel",
				"/types/pause?type=export", "/types/resume?type=export", "/bulk/retry?status=failed&type=export",
				"/bulk/delete?type=export" }) {
			for (String method : new String[] { "GET", "POST" }) {
				Browser.Response response = browser.send(method, url(path), "http://localhost:" + this.port + "/login");
				assertThat(response.status()).as(method + " " + path).isEqualTo(403);
				assertThat(response.body()).as(method + " " + path).contains("This dashboard is read-only");
			}
		}
		// A chain with unfinished steps is shown, but offers no cancel.
		FanOut fanOut = this.jobQueue.enqueueFanOut(List.of(JobRequest.of(BrowserTestJobs.HELD, "read-only")),
				JobRequest.of("export", new BrowserTestJobs.ExportRequest("read-only-join")));
		browser.open(url("/jobs/" + fanOut.joinId()));
		assertThat(browser.text("#job-status")).isEqualTo("waiting");
		assertThat(browser.text("#chain-summary")).contains("2 job(s) in all, 2 unfinished");
		assertThat(browser.count("[data-action], #action-cancel-chain")).isZero();
		for (String method : new String[] { "GET", "POST" }) {
			String path = "/jobs/" + fanOut.joinId() + "/cancel-chain";
			assertThat(browser.send(method, url(path), "http://localhost:" + this.port + "/login").status())
				.as(method + " " + path)
				.isEqualTo(403);
		}
		assertThat(this.jobQueue.find(fanOut.joinId()).orElseThrow().status()).isEqualTo(JobStatus.WAITING);
		browser.open(url("/jobs/" + id + "/retry"));
		assertThat(browser.text("#problem")).isEqualTo("This dashboard is read-only");
		assertThat(this.jobQueue.find(id).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
		assertThat(this.jobQueue.pausedTypes()).isEmpty();
	}

	private String url(String path) {
		return "http://localhost:" + this.port + "/jobqueue" + path;
	}

	private HttpResponse<Void> strangerGet(String path) throws Exception {
		return HTTP.send(HttpRequest.newBuilder(URI.create(url(path))).GET().build(),
				HttpResponse.BodyHandlers.discarding());
	}

}
