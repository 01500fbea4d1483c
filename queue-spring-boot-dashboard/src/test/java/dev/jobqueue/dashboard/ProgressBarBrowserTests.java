package dev.jobqueue.dashboard;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.web.client.RestClient;

import dev.jobqueue.JobQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long job's progress, reported by its handler, moves the bar on the overview and on
 * the job's page without a reload, and the endpoint reads the same: on every store
 * (subclasses say where the queue lives).
 */
@Tag("browser")
@SpringBootTest(classes = BrowserTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
abstract class ProgressBarBrowserTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@TempDir
	static Path browserDir;

	static Browser browser;

	@BeforeAll
	static void startBrowser() {
		browser = Browser.start(browserDir, 1280, 900);
	}

	@AfterAll
	static void stopBrowser() {
		if (browser != null) {
			browser.close();
		}
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue jobQueue;

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
	void aLongJobsProgressBarMovesOnTheOverviewAndItsPage() {
		long id = this.jobQueue.enqueue("archive", new BrowserTestJobs.ArchiveRequest(60));
		browser.open(url("/"));
		String bar = "#progress-" + id;
		browser.waiting(WAIT).until((driver) -> browser.attribute(bar, "value") != null);
		long first = Long.parseLong(browser.attribute(bar, "value"));
		assertThat(browser.attribute(bar, "max")).isEqualTo("60");
		// The page refreshes itself: the bar moves on without a reload.
		browser.waiting(WAIT).until((driver) -> progressOf(bar) > first);
		overviewShown(browser);
		browser.open(url("/jobs/" + id));
		long onPage = progressOf(bar);
		browser.waiting(WAIT).until((driver) -> progressOf(bar) > onPage);
		assertThat(browser.text(".progress-message")).startsWith("packing image");
		Map<?, ?> detail = RestClient.builder()
			.defaultHeaders((headers) -> headers.setBasicAuth(Browser.OPERATOR, Browser.OPERATOR_PASSWORD))
			.build()
			.get()
			.uri("http://localhost:" + this.port + "/actuator/jobqueue/" + id)
			.retrieve()
			.body(Map.class);
		assertThat(((Map<?, ?>) detail.get("progress")).get("total")).isEqualTo(60);
		this.jobQueue.cancel(id);
	}

	/** Called while the overview shows a moving bar (for a screenshot, say). */
	void overviewShown(Browser browser) {
	}

	private static long progressOf(String bar) {
		String value = browser.attribute(bar, "value");
		return (value != null) ? Long.parseLong(value) : -1;
	}

	private String url(String path) {
		return "http://localhost:" + this.port + "/jobqueue" + path;
	}

}
