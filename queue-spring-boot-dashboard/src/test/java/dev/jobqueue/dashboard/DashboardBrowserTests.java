package dev.jobqueue.dashboard;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.ExpectedConditions;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.web.client.RestClient;

import dev.jobqueue.BulkRequest;
import dev.jobqueue.FanOut;
import dev.jobqueue.Job;
import dev.jobqueue.JobFilter;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard (actions on, values shown to the operator) in a real headless Chromium,
 * signed in as the operator on the application's sign-in form: find a failed job, read
 * its error and attempts, retry it and watch it succeed; the overview agrees with the
 * actuator endpoint; bad input is answered in words; payloads are text. Every page leaves
 * the browser's console clean.
 */
@Tag("browser")
@SpringBootTest(classes = BrowserTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class DashboardBrowserTests extends SqliteFileBrowserTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@LocalServerPort
	int port;

	@Autowired
	JobQueue jobQueue;

	@Autowired
	BrowserTestJobs.Exports exports;

	@BeforeEach
	void signIn() {
		browser.signIn(url("/"), Browser.OPERATOR, Browser.OPERATOR_PASSWORD);
		browser.clearConsole();
	}

	@AfterEach
	void consoleStayedClean() {
		assertThat(browser.consoleProblems()).as("browser console").isEmpty();
	}

	@Test
	void aFailedJobIsFoundOpenedRetriedWithTheKeyboardAndSucceeds() {
		this.exports.failing.set(true);
		long id = failedExport("monthly");
		browser.open(url("/jobs?status=failed"));
		browser.click("tr[data-job='" + id + "'] a");
		assertThat(browser.text("#job-status")).isEqualTo("failed");
		assertThat(browser.text("#error-code")).isEqualTo("DEPENDENCY:EXPORT_API");
		assertThat(browser.text("#error-detail")).contains("export service answered 503");
		assertThat(browser.count("#attempts tbody tr")).isEqualTo(1);
		assertThat(browser.text("#attempts tbody tr")).contains("FAILED").contains("DEPENDENCY:EXPORT_API");
		assertThat(browser.count("#steps tbody tr")).isEqualTo(1);
		assertThat(browser.text("#steps tbody tr")).contains("render").contains("\"rendered monthly\"");

		this.exports.failing.set(false);
		browser.click("#action-retry");
		assertThat(browser.text("h1")).isEqualTo("Retry job #" + id + "?");
		// The confirmation button has the focus: Enter confirms, as for a keyboard user.
		browser.driver().switchTo().activeElement().sendKeys(Keys.ENTER);
		browser.waiting(WAIT).until(ExpectedConditions.textToBe(org.openqa.selenium.By.id("job-status"), "succeeded"));
		assertThat(browser.text("#notice")).contains("back to pending");
		assertThat(browser.count("#attempts tbody tr")).isEqualTo(2);
		assertThat(browser.count("#steps tbody tr")).as("the retry kept the step and did not run it again")
			.isEqualTo(1);
		assertThat(browser.text("#steps tbody tr td:nth-child(2)")).isEqualTo("1");
		assertThat(this.jobQueue.find(id).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
		screenshot("dashboard-job.png");
	}

	@Test
	void failedJobsOfOneErrorAreRetriedTogetherAfterTheirCountIsShown() {
		this.exports.failing.set(true);
		List<Long> failed = List.of(failedExport("bulk-1"), failedExport("bulk-2"), failedExport("bulk-3"));
		this.exports.failing.set(false);
		long matching = this.jobQueue
			.bulk(BulkRequest
				.retry(JobFilter.any().status(JobStatus.FAILED).type("export").errorCode("DEPENDENCY:EXPORT_API"))
				.dryRun())
			.matched();
		assertThat(matching).isGreaterThanOrEqualTo(3);

		browser.open(url("/jobs?status=failed&type=export&error=DEPENDENCY:EXPORT_API"));
		assertThat(browser.count("#bulk-retry, #bulk-delete")).isEqualTo(2);
		assertThat(browser.count("#bulk-cancel")).as("failed jobs cannot be cancelled").isZero();
		browser.click("#bulk-retry");
		assertThat(browser.text("h1")).isEqualTo("Retry " + matching + " job" + ((matching == 1) ? "" : "s") + "?");
		assertThat(browser.text("main p")).contains("status=failed", "errorCode=DEPENDENCY:EXPORT_API");
		browser.driver().switchTo().activeElement().sendKeys(Keys.ENTER);
		browser.waiting(WAIT).until((driver) -> browser.count("#bulk-done") > 0);
		assertThat(browser.text("#bulk-done")).isEqualTo(matching + " job" + ((matching == 1) ? "" : "s") + " retried");
		for (long id : failed) {
			await().atMost(WAIT).until(() -> this.jobQueue.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
			browser.open(url("/jobs/" + id));
			assertThat(browser.count("#attempts tbody tr")).isEqualTo(2);
			assertThat(browser.text(".timeline")).contains("RETRIED").contains("bulk retry");
		}
		browser.open(url("/jobs?status=failed&type=export&error=DEPENDENCY:EXPORT_API"));
		browser.click("#bulk-retry");
		assertThat(browser.text("#problem")).isEqualTo("No job to retry");
		assertThat(browser.consoleProblems()).isNotEmpty().allMatch((line) -> line.contains("status of 409"));
		browser.clearConsole();
	}

	@Test
	void aJobIsFoundFromTheSearchBoxByItsPayloadAndById() {
		long id = succeededExport("needle-in-the-haystack");
		browser.open(url("/"));
		browser.driver().findElement(org.openqa.selenium.By.id("search-box")).sendKeys("NEEDLE-in", Keys.ENTER);
		browser.waiting(WAIT).until((driver) -> browser.count("#search-results") > 0);
		assertThat(browser.count("#search-results tbody tr")).isEqualTo(1);
		assertThat(browser.text("#search-results tr[data-job='" + id + "']")).contains("export", "payload");
		assertThat(browser.text("#search-scope")).contains("dedup keys, error details and payloads");
		assertThat(browser.attribute("#search-query", "value")).isEqualTo("NEEDLE-in");

		browser.driver().findElement(org.openqa.selenium.By.id("search-box")).sendKeys(Long.toString(id), Keys.ENTER);
		browser.waiting(WAIT).until((driver) -> driver.getCurrentUrl().endsWith("q=" + id));
		assertThat(browser.text("#search-results tr[data-job='" + id + "'] td:nth-child(5)")).isEqualTo("id");
		browser.click("#search-results tr[data-job='" + id + "'] a");
		assertThat(browser.text("#job-status")).isEqualTo("succeeded");
	}

	@Test
	void theOverviewShowsTheNumbersOfTheActuatorEndpoint() {
		this.exports.failing.set(true);
		failedExport("overview-1");
		this.exports.failing.set(false);
		succeededExport("overview-2");
		RestClient client = operatorClient();
		await().atMost(WAIT).untilAsserted(() -> {
			browser.open(url("/"));
			Map<String, Long> shown = new LinkedHashMap<>();
			browser.textsBy("[data-count]", "data-count")
				.forEach((status, count) -> shown.put(status, Long.parseLong(count.replace(",", ""))));
			Map<?, ?> report = client.get()
				.uri("http://localhost:" + this.port + "/actuator/jobqueue")
				.retrieve()
				.body(Map.class);
			Map<String, Long> counts = new LinkedHashMap<>();
			((Map<?, ?>) report.get("counts"))
				.forEach((status, count) -> counts.put((String) status, ((Number) count).longValue()));
			assertThat(shown).isEqualTo(counts);
			assertThat(shown.get("failed")).isPositive();
			assertThat(shown.get("succeeded")).isPositive();
		});
		assertThat(browser.text("#outcome-totals")).contains("succeeded").contains("failed");
		assertThat(browser.attribute("svg.chart", "aria-label")).startsWith("Last hour:");
		assertThat(browser.text("#errors")).contains("DEPENDENCY:EXPORT_API");
		assertThat(browser.text("#types")).contains("export");
		assertThat(browser.text("#schedules")).contains("nightly-report");
		assertThat(browser.count("#workers tbody tr")).isPositive();
		browser.click("a[href$='window=day']");
		assertThat(browser.attribute("svg.chart", "aria-label")).startsWith("Last day:");
	}

	@Test
	void aPayloadWithMarkupIsShownAsText() {
		String payload = "<script>window.jobqueueInjected = true</script><b>bold</b>";
		long id = succeededExport(payload);
		browser.open(url("/jobs/" + id));
		assertThat(browser.text("#payload")).contains(payload);
		assertThat(browser.text("#result")).contains("exported " + payload);
		assertThat(browser.driver().executeScript("return window.jobqueueInjected === undefined")).isEqualTo(true);
		assertThat(browser.count("#payload b")).isZero();
	}

	@Test
	void badInputIsAnsweredInWordsWithItsStatus() {
		assertThat(status("GET", "/jobs/987654321")).isEqualTo(404);
		browser.open(url("/jobs/987654321"));
		assertThat(browser.text("#problem")).isEqualTo("There is no job #987654321");

		assertThat(status("GET", "/jobs?before=not-a-token")).isEqualTo(400);
		browser.open(url("/jobs?before=not-a-token"));
		assertThat(browser.text("#problem-detail")).contains("page token 'not-a-token'");
		assertThat(status("GET", "/jobs?status=exploded")).isEqualTo(400);
		browser.open(url("/jobs?status=exploded"));
		assertThat(browser.text("#problem-detail")).contains("Unknown status 'exploded'");
		assertThat(status("GET", "/no/such/page")).isEqualTo(404);

		long succeeded = succeededExport("already-done");
		assertThat(status("POST", "/jobs/" + succeeded + "/retry")).isEqualTo(409);
		assertThat(this.jobQueue.find(succeeded).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);

		// The confirmation page is open while someone else retries the job: confirming
		// changes nothing.
		this.exports.failing.set(true);
		long failed = failedExport("moved-on");
		browser.open(url("/jobs/" + failed + "/retry"));
		this.exports.failing.set(false);
		this.jobQueue.retry(failed);
		await().atMost(WAIT).until(() -> this.jobQueue.find(failed).orElseThrow().status() == JobStatus.SUCCEEDED);
		browser.click("#confirm");
		// The answer to the form comes back at the same address: wait for its document,
		// not for a new URL.
		browser.waiting(WAIT).until((driver) -> browser.count("#problem") > 0);
		assertThat(browser.text("#problem")).isEqualTo("Job #" + failed + " was not retried");
		assertThat(browser.text("#problem-detail")).contains("It is succeeded now").contains("Nothing was changed");
		// A 4xx document is reported in the console by the browser itself; only those are
		// expected.
		assertThat(browser.consoleProblems()).isNotEmpty().allMatch((line) -> line.contains("status of 4"));
		browser.clearConsole();
	}

	@Test
	void aChainShowsItsStepsInOrderEachLinkingToItsJob() {
		long chainId = this.jobQueue.enqueue("scan", "harbour");
		await().atMost(WAIT).until(() -> {
			List<Job> steps = this.jobQueue.findChain(chainId);
			return steps.size() == 3 && steps.stream().allMatch((step) -> step.status() == JobStatus.SUCCEEDED);
		});
		List<Job> steps = this.jobQueue.findChain(chainId);
		browser.open(url("/jobs/" + chainId));
		assertThat(browser.text("#chain-summary")).startsWith("Step 1 of the chain").contains("3 job(s) in all");
		assertThat(browser.count("#chain > li")).isEqualTo(3);
		for (int i = 0; i < 3; i++) {
			Job step = steps.get(i);
			assertThat(browser.text("#chain > li:nth-child(" + (i + 1) + ")"))
				.isEqualTo("#" + step.id() + " " + step.type() + " succeeded");
		}
		assertThat(steps).extracting(Job::type).containsExactly("scan", "thumbnail", "publish");
		assertThat(browser.count("#action-cancel-chain")).isZero();
		// Each step links to its own page, which shows the same chain with itself marked.
		long publish = steps.get(2).id();
		browser.click("#chain [data-job='" + publish + "'] a");
		browser.waiting(WAIT).until((driver) -> driver.getCurrentUrl().endsWith("/jobs/" + publish));
		assertThat(browser.text("#chain-summary")).startsWith("Step 3 of the chain started by #" + chainId);
		assertThat(browser.attribute("#chain [data-job='" + publish + "']", "aria-current")).isEqualTo("true");
		assertThat(browser.consoleProblems()).isEmpty();
	}

	@Test
	void aWaitingJoinIsCountedShowsWhatItWaitsForAndItsChainIsCancelledWithTheKeyboard() {
		FanOut fanOut = this.jobQueue.enqueueFanOut(
				List.of(JobRequest.of(BrowserTestJobs.HELD, "first"), JobRequest.of(BrowserTestJobs.HELD, "second")),
				JobRequest.of("export", new BrowserTestJobs.ExportRequest("after-both")));
		long join = fanOut.joinId();
		browser.open(url("/"));
		assertThat(Long.parseLong(browser.text("[data-count='waiting']").replace(",", ""))).isPositive();
		browser.click("a[href$='/jobs?status=waiting']");
		browser.waiting(WAIT).until((driver) -> browser.count("tr[data-job='" + join + "']") == 1);
		browser.click("tr[data-job='" + join + "'] a");
		assertThat(browser.text("#job-status")).isEqualTo("waiting");
		assertThat(browser.text("#waits-for-summary")).startsWith("Waits for 2 job(s), 2 of them unfinished");
		assertThat(browser.count("#waits-for [data-job]")).isEqualTo(2);

		browser.click("#action-cancel-chain");
		assertThat(browser.text("h1")).isEqualTo("Cancel the chain of job #" + join + "?");
		browser.driver().switchTo().activeElement().sendKeys(Keys.ENTER);
		browser.waiting(WAIT).until(ExpectedConditions.textToBe(org.openqa.selenium.By.id("job-status"), "cancelled"));
		assertThat(browser.text("#notice")).startsWith("Chain cancelled");
		assertThat(browser.count("#action-cancel-chain")).isZero();
		assertThat(this.jobQueue.findChain(fanOut.chainId())).extracting(Job::status).containsOnly(JobStatus.CANCELLED);
		assertThat(browser.consoleProblems()).isEmpty();
	}

	@Test
	void thePagesFitAPhoneScreen() {
		this.exports.failing.set(true);
		long id = failedExport("phone");
		this.exports.failing.set(false);
		List<JobRequest> children = new java.util.ArrayList<>();
		for (int i = 0; i < 12; i++) {
			children.add(JobRequest.of(BrowserTestJobs.HELD, "phone-" + i));
		}
		FanOut fanOut = this.jobQueue.enqueueFanOut(children,
				JobRequest.of("export", new BrowserTestJobs.ExportRequest("phone-join")));
		browser.driver().manage().window().setSize(new org.openqa.selenium.Dimension(390, 844));
		try {
			for (String path : List.of("/", "/jobs?status=failed", "/jobs/" + id, "/jobs/" + fanOut.joinId(),
					"/jobs?status=waiting", "/search?q=phone", "/bulk/retry?status=failed")) {
				browser.open(url(path));
				Object overflow = browser.driver()
					.executeScript("return document.documentElement.scrollWidth > window.innerWidth + 1");
				assertThat(overflow).as(path + " is wider than the phone").isEqualTo(false);
			}
		}
		finally {
			browser.driver().manage().window().setSize(new org.openqa.selenium.Dimension(1280, 900));
			this.jobQueue.cancelChain(fanOut.chainId());
		}
	}

	/**
	 * Saves the page for the README, only when asked
	 * ({@code -Djobqueue.dashboard.screenshots=true}), so an ordinary build never
	 * rewrites the files in {@code docs/}.
	 */
	private static void screenshot(String name) {
		if (Boolean.getBoolean("jobqueue.dashboard.screenshots")) {
			browser.screenshot(Path.of("").toAbsolutePath().getParent().resolve("docs").resolve(name));
		}
	}

	private long failedExport(String name) {
		long id = this.jobQueue
			.enqueue(JobRequest.of("export", new BrowserTestJobs.ExportRequest(name)).maxAttempts(1));
		await().atMost(WAIT).until(() -> this.jobQueue.find(id).orElseThrow().status() == JobStatus.FAILED);
		return id;
	}

	private long succeededExport(String name) {
		long id = this.jobQueue.enqueue("export", new BrowserTestJobs.ExportRequest(name));
		await().atMost(WAIT).until(() -> this.jobQueue.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
		return id;
	}

	private String url(String path) {
		return "http://localhost:" + this.port + "/jobqueue" + path;
	}

	/**
	 * The status of a request the signed-in operator's page sends (a POST with its CSRF
	 * token).
	 */
	private int status(String method, String path) {
		return browser.send(method, url(path), "http://localhost:" + this.port + "/login").status();
	}

	/** The actuator, as the operator (HTTP Basic). */
	private static RestClient operatorClient() {
		return RestClient.builder()
			.defaultHeaders((headers) -> headers.setBasicAuth(Browser.OPERATOR, Browser.OPERATOR_PASSWORD))
			.build();
	}

}
