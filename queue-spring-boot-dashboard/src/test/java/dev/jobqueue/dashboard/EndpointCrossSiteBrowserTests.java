package dev.jobqueue.dashboard;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.PropertySource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code jobqueue} endpoint's writes, open to anyone who reaches them, served
 * elsewhere than the main server's {@code /actuator}: on a separate management port,
 * under a base path and a path mapping, under a servlet path. In each, a page on another
 * origin sends the writes with {@code fetch(…, {method: 'POST', mode: 'no-cors'})} (a
 * running job's cancel, a type's pause; a form post carries a content type the endpoint
 * does not take): every one is refused and the queue is unchanged. The same request from
 * a page of the endpoint's own origin still acts.
 */
@Tag("browser")
class EndpointCrossSiteBrowserTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@TempDir
	static Path dataDir;

	static Browser browser;

	static OtherSite otherSite;

	@BeforeAll
	static void startBrowserAndOtherSite() throws IOException {
		browser = Browser.start(dataDir, 1280, 900);
		otherSite = OtherSite.start();
	}

	@AfterAll
	static void stop() {
		if (browser != null) {
			browser.close();
		}
		if (otherSite != null) {
			otherSite.close();
		}
	}

	@Nested
	@SpringBootTest(classes = EndpointApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = "management.server.port=0")
	@DirtiesContext
	class OnTheManagementPort extends Setup {

		@LocalManagementPort
		int managementPort;

		@Override
		String endpoint() {
			return "http://localhost:" + this.managementPort + "/actuator/jobqueue";
		}

	}

	@Nested
	@SpringBootTest(classes = EndpointApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
	@TestPropertySource(properties = { "management.endpoints.web.base-path=/manage",
			"management.endpoints.web.path-mapping.jobqueue=queue" })
	@DirtiesContext
	class UnderAPathMapping extends Setup {

		@Override
		String endpoint() {
			return "http://localhost:" + this.port + "/manage/queue";
		}

	}

	@Nested
	@SpringBootTest(classes = EndpointApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = "spring.mvc.servlet.path=/app")
	@DirtiesContext
	class UnderAServletPath extends Setup {

		@Override
		String endpoint() {
			return "http://localhost:" + this.port + "/app/actuator/jobqueue";
		}

	}

	abstract static class Setup {

		@LocalServerPort
		int port;

		@Autowired
		JobQueue queue;

		/** Where this setup serves the endpoint. */
		abstract String endpoint();

		@DynamicPropertySource
		static void dataDirectory(DynamicPropertyRegistry registry) {
			registry.add("jobqueue.datasource.url",
					() -> "jdbc:sqlite:" + dataDir.resolve("queue-" + System.nanoTime() + ".db"));
		}

		@Test
		void anotherSitesWritesAreRefusedAndTheEndpointsOwnOriginStillActs() {
			long running = this.queue.enqueue("archive", new BrowserTestJobs.ArchiveRequest(100_000));
			await().atMost(WAIT).until(() -> job(running).status() == JobStatus.RUNNING);

			browser.open(otherSite.page("""
					<!DOCTYPE html><html><head><title>loading</title></head><body>
					<script>
					Promise.all([
						fetch('%1$s/%2$d/cancel', { method: 'POST', mode: 'no-cors' }),
						fetch('%1$s/archive/pause', { method: 'POST', mode: 'no-cors' })
					]).then(function () { document.title = 'sent'; }, function (e) { document.title = 'failed ' + e; });
					</script></body></html>
					""".formatted(endpoint(), running)));
			// The fetches' promises settle once the application answered.
			browser.waiting(WAIT).until((driver) -> !driver.getTitle().equals("loading"));
			assertThat(browser.driver().getTitle()).isEqualTo("sent");
			assertUnchanged(running);

			// A page of the endpoint's own origin (its own answer) sends the same write.
			browser.open(endpoint());
			Object status = browser.driver()
				.executeAsyncScript("var done = arguments[arguments.length - 1];"
						+ "fetch(arguments[0], { method: 'POST' }).then(function (r) { done(r.status); },"
						+ " function (e) { done('failed ' + e); });", endpoint() + "/archive/pause");
			assertThat(status).isEqualTo(200L);
			assertThat(this.queue.pausedTypes()).extracting((paused) -> paused.type()).containsExactly("archive");
			this.queue.cancel(running);
		}

		private void assertUnchanged(long running) {
			Job job = job(running);
			assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
			assertThat(job.cancelRequested()).isFalse();
			assertThat(this.queue.pausedTypes()).isEmpty();
		}

		private Job job(long id) {
			return this.queue.find(id).orElseThrow();
		}

	}

	/**
	 * The endpoint with its writes open and no Spring Security
	 * ({@code browser-test.properties}); the dashboard off.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
	@Import(BrowserTestJobs.class)
	@PropertySource("classpath:dev/jobqueue/dashboard/browser-test.properties")
	static class EndpointApplication {

	}

}
