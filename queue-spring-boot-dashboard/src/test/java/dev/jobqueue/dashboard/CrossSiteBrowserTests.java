package dev.jobqueue.dashboard;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.PropertySource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard with its actions on and the endpoint's writes open in an application
 * without Spring Security, as the README's Getting started builds it: a page served by
 * the test on another origin (another port of the same host, which browsers call
 * same-site) posts a form to the dashboard and sends a bodiless {@code fetch(…, {method:
 * 'POST', mode: 'no-cors'})} to the actuator. Both are refused and nothing changes in the
 * queue; the dashboard's own buttons still act.
 */
@Tag("browser")
@SpringBootTest(classes = CrossSiteBrowserTests.UnsecuredApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class CrossSiteBrowserTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@TempDir
	static Path dataDir;

	static Browser browser;

	static HttpServer otherSite;

	@DynamicPropertySource
	static void dataDirectory(DynamicPropertyRegistry registry) {
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dataDir.resolve("queue.db"));
	}

	@BeforeAll
	static void startBrowserAndOtherSite() throws IOException {
		browser = Browser.start(dataDir, 1280, 900);
		otherSite = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		// The page's markup is in the query string: each test writes its own.
		otherSite.createContext("/page", (exchange) -> {
			String query = exchange.getRequestURI().getRawQuery();
			byte[] body = java.net.URLDecoder.decode(query.substring("html=".length()), StandardCharsets.UTF_8)
				.getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
			exchange.sendResponseHeaders(200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		otherSite.start();
	}

	@AfterAll
	static void stop() {
		if (browser != null) {
			browser.close();
		}
		if (otherSite != null) {
			otherSite.stop(0);
		}
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	@Test
	void anotherSitesFormAndNoCorsFetchAreRefusedAndTheDashboardsOwnButtonsStillWork() {
		long id = this.queue.enqueue(BrowserTestJobs.HELD, "{}");
		String page = """
				<!DOCTYPE html><html><head><title>loading</title></head><body>
				<form id="cancel" method="post" action="%1$s/jobqueue/jobs/%2$d/cancel">
				<button id="go" type="submit">Win a prize</button></form>
				<script>
				fetch('%1$s/actuator/jobqueue/%3$s/pause', { method: 'POST', mode: 'no-cors' })
					.then(function () { document.title = 'sent'; }, function (e) { document.title = 'failed ' + e; });
				</script></body></html>
				""".formatted(url(""), id, BrowserTestJobs.HELD);
		browser.open("http://localhost:" + otherSite.getAddress().getPort() + "/page?html="
				+ java.net.URLEncoder.encode(page, StandardCharsets.UTF_8));
		// The fetch's promise settles once the application answered.
		browser.waiting(WAIT).until((driver) -> !driver.getTitle().equals("loading"));
		assertThat(browser.driver().getTitle()).isEqualTo("sent");
		assertThat(this.queue.pausedTypes()).isEmpty();

		browser.click("#go");
		browser.waiting(WAIT).until((driver) -> driver.getCurrentUrl().startsWith(url("/jobqueue/jobs/")));
		assertThat(browser.text("#problem")).isEqualTo("This request came from another site");
		assertThat(browser.text("#problem-detail")).contains("Nothing was changed");
		assertThat(this.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		assertThat(this.queue.pausedTypes()).isEmpty();

		// The dashboard's own confirmation form, same origin, still cancels.
		browser.open(url("/jobqueue/jobs/" + id));
		browser.click("#action-cancel");
		browser.click("#confirm");
		browser.waiting(WAIT).until((driver) -> driver.getCurrentUrl().contains("done=cancel"));
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(this.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED));
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

	/**
	 * The browser tests' application without Spring Security: dashboard actions on,
	 * endpoint writes open ({@code browser-test.properties}).
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
	@Import(BrowserTestJobs.class)
	@PropertySource("classpath:dev/jobqueue/dashboard/browser-test.properties")
	static class UnsecuredApplication {

	}

}
