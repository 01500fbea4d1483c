package dev.jobqueue.dashboard;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.PropertySource;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard behind Spring Security with its CSRF check turned off for
 * {@code /jobqueue/**}, a setup applications choose: Spring Security still offers a token
 * on every request there, but checks none, so the dashboard's own cross-site check must
 * hold. The operator signs in; a page on another origin (same-site for the browser, so
 * the session cookie goes along) then posts the dashboard's forms: cancel a running job,
 * pause a type, bulk-retry and bulk-delete failed jobs. Each is refused and the queue is
 * unchanged; the dashboard's own buttons still act.
 */
@Tag("browser")
@SpringBootTest(classes = CsrfIgnoredCrossSiteBrowserTests.CsrfIgnoredApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class CsrfIgnoredCrossSiteBrowserTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	@TempDir
	static Path dataDir;

	static Browser browser;

	static OtherSite otherSite;

	@DynamicPropertySource
	static void dataDirectory(DynamicPropertyRegistry registry) {
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dataDir.resolve("queue.db"));
	}

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

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	@Autowired
	BrowserTestJobs.Exports exports;

	@Test
	void anotherSitesFormsAreRefusedThoughSpringSecurityChecksNoTokenThere() {
		long running = this.queue.enqueue("archive", new BrowserTestJobs.ArchiveRequest(100_000));
		await().atMost(WAIT).until(() -> job(running).status() == JobStatus.RUNNING);
		this.exports.failing.set(true);
		List<Long> failed = List.of(failedExport("cross-site-1"), failedExport("cross-site-2"));
		this.exports.failing.set(false);
		browser.signIn(url("/jobqueue"), Browser.OPERATOR, Browser.OPERATOR_PASSWORD);

		for (String action : List.of("/jobqueue/jobs/" + running + "/cancel", "/jobqueue/types/pause?type=export",
				"/jobqueue/bulk/retry?status=failed&type=export", "/jobqueue/bulk/delete?status=failed&type=export")) {
			browser.open(otherSite.page("""
					<!DOCTYPE html><html><head><title>prize</title></head><body>
					<form id="attack" method="post" action="%s"><button type="submit">Win a prize</button></form>
					<script>document.getElementById('attack').submit();</script></body></html>
					""".formatted(url(action))));
			browser.waiting(WAIT).until((driver) -> driver.getCurrentUrl().startsWith(url("/jobqueue")));
			assertThat(browser.text("#problem")).as(action).isEqualTo("This request came from another site");
			assertThat(browser.text("#problem-detail")).as(action).contains("Nothing was changed");

			Job stillRunning = job(running);
			assertThat(stillRunning.status()).as(action).isEqualTo(JobStatus.RUNNING);
			assertThat(stillRunning.cancelRequested()).as(action).isFalse();
			assertThat(this.queue.pausedTypes()).as(action).isEmpty();
			for (long id : failed) {
				Job job = this.queue.find(id).orElseThrow(() -> new AssertionError(action + " deleted job " + id));
				assertThat(job.status()).as(action).isEqualTo(JobStatus.FAILED);
				assertThat(job.attempts()).as(action).isEqualTo(1);
			}
		}

		// The dashboard's own confirmation form, same origin, still cancels (opened by
		// its
		// address: the running job's page refreshes itself under a click).
		browser.open(url("/jobqueue/jobs/" + running + "/cancel"));
		browser.click("#confirm");
		browser.waiting(WAIT).until((driver) -> driver.getCurrentUrl().contains("done=cancel"));
		await().atMost(WAIT).untilAsserted(() -> assertThat(job(running).status()).isEqualTo(JobStatus.CANCELLED));
	}

	private Job job(long id) {
		return this.queue.find(id).orElseThrow();
	}

	private long failedExport(String name) {
		long id = this.queue.enqueue(JobRequest.of("export", new BrowserTestJobs.ExportRequest(name)).maxAttempts(1));
		await().atMost(WAIT).until(() -> job(id).status() == JobStatus.FAILED);
		return id;
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

	/**
	 * The dashboard behind a sign-in form and a session, with Spring Security's CSRF
	 * check turned off for the dashboard's path.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
	@EnableWebSecurity
	@Import(BrowserTestJobs.class)
	@PropertySource("classpath:dev/jobqueue/dashboard/browser-test.properties")
	static class CsrfIgnoredApplication {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((
					requests) -> requests.requestMatchers("/jobqueue/**").hasRole("OPERATOR").anyRequest().permitAll());
			http.formLogin(Customizer.withDefaults());
			http.csrf((csrf) -> csrf.ignoringRequestMatchers("/jobqueue/**"));
			return http.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(User.withUsername(Browser.OPERATOR)
				.password("{noop}" + Browser.OPERATOR_PASSWORD)
				.roles("OPERATOR")
				.build());
		}

	}

}
