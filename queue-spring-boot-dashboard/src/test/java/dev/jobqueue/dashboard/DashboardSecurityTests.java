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
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard behind an application's own Spring Security configuration (the README's
 * two lines): strangers are turned away, a user without the role too, and an operator's
 * actions need the CSRF token the forms carry. Values follow the endpoint's
 * {@code show-values=when-authorized} and {@code roles}, judged from the request's
 * principal: a support user may open the page but does not see the payload.
 */
@SpringBootTest(classes = DashboardSecurityTests.SecuredApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "jobqueue.worker.enabled=false", "jobqueue.dashboard.enabled=true",
				"jobqueue.dashboard.read-only=false", "management.endpoint.jobqueue.show-values=when-authorized",
				"management.endpoint.jobqueue.roles=OPS" })
@DirtiesContext
class DashboardSecurityTests {

	private static final Pattern CSRF = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"");

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) throws IOException {
		Path dir = Files.createTempDirectory("jobqueue-dashboard-security");
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void theDashboardFollowsTheApplicationsSecurityAndActionsNeedTheCsrfToken() throws Exception {
		long id = this.queue.enqueue("email", "{\"to\":\"someone@example.com\"}");
		assertThat(get("/jobqueue/", null).statusCode()).isEqualTo(401);
		assertThat(get("/jobqueue/", "viewer").statusCode()).isEqualTo(403);

		HttpResponse<String> job = get("/jobqueue/jobs/" + id, "operator");
		assertThat(job.statusCode()).isEqualTo(200);
		assertThat(job.body()).contains("someone@example.com");
		HttpResponse<String> supportView = get("/jobqueue/jobs/" + id, "support");
		assertThat(supportView.statusCode()).isEqualTo(200);
		assertThat(supportView.body()).doesNotContain("someone@example.com")
			.contains("hidden (management.endpoint.jobqueue.show-values)");

		HttpResponse<String> confirm = get("/jobqueue/jobs/" + id + "/cancel", "operator");
		assertThat(confirm.statusCode()).isEqualTo(200);
		Matcher token = CSRF.matcher(confirm.body());
		assertThat(token.find()).as("the confirmation form carries the CSRF token").isTrue();
		String session = confirm.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];

		assertThat(post("/jobqueue/jobs/" + id + "/cancel", session, "").statusCode()).isEqualTo(403);
		assertThat(this.queue.find(id).orElseThrow().status().dbValue()).isEqualTo("pending");
		HttpResponse<String> cancelled = post("/jobqueue/jobs/" + id + "/cancel", session,
				"_csrf=" + URLEncoder.encode(token.group(1), StandardCharsets.UTF_8));
		assertThat(cancelled.statusCode()).isEqualTo(303);
		assertThat(this.queue.find(id).orElseThrow().status().dbValue()).isEqualTo("cancelled");
	}

	private HttpResponse<String> get(String path, String user) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
		if (user != null) {
			request.header("Authorization", basic(user));
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(String path, String session, String form) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path))
			.header("Authorization", basic("operator"))
			.header("Cookie", session)
			.header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static String basic(String user) {
		return "Basic " + Base64.getEncoder().encodeToString((user + ":secret").getBytes(StandardCharsets.UTF_8));
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
	@EnableWebSecurity
	static class SecuredApplication {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			// The README's two lines: the dashboard's path needs a role; CSRF protection
			// stays on.
			http.authorizeHttpRequests((requests) -> requests.requestMatchers("/jobqueue/**")
				.hasAnyRole("OPS", "SUPPORT")
				.anyRequest()
				.permitAll());
			http.httpBasic(Customizer.withDefaults());
			return http.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("operator").password("{noop}secret").roles("OPS").build(),
					User.withUsername("support").password("{noop}secret").roles("SUPPORT").build(),
					User.withUsername("viewer").password("{noop}secret").roles("SALES").build());
		}

	}

}
