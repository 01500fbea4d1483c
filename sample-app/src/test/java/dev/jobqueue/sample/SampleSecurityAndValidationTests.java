package dev.jobqueue.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a client sees of the sample's edge: bad uploads refused with the reason, nothing
 * that changes a job without the operator's password, and the dashboard behind the
 * operator's sign-in. The worker is off, so jobs stay as the requests leave them.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.demo-traffic.enabled=false", "jobqueue.worker.enabled=false",
				"spring.security.user.password=test-operator-secret" })
class SampleSecurityAndValidationTests {

	@TempDir
	static Path dataDir;

	@DynamicPropertySource
	static void dataDirectory(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> "jdbc:sqlite:" + dataDir.resolve("sample.db"));
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue jobQueue;

	final HttpClient http = HttpClient.newHttpClient();

	@Test
	void anUploadWithoutANameIsA400ThatSaysSo() throws Exception {
		HttpResponse<String> response = post("/images", "{\"width\":640,\"height\":480}", null);
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body()).contains("\"detail\":\"'name' is missing: give the image a name\"");
	}

	@Test
	void anOversizedImageIsA413ThatSaysSo() throws Exception {
		HttpResponse<String> response = post("/images", "{\"name\":\"huge\",\"width\":20000,\"height\":20000}", null);
		assertThat(response.statusCode()).isEqualTo(413);
		assertThat(response.body()).contains("The image has 400000000 pixels (20000x20000); at most 100000000");
	}

	@Test
	void changingAJobNeedsTheOperator() throws Exception {
		long job = this.jobQueue.enqueue("tag", new ImageJobs.ImageRef(1, "cat"));

		assertThat(post("/actuator/jobqueue/" + job + "/cancel", "{}", null).statusCode()).isEqualTo(401);
		assertThat(post("/actuator/jobqueue/tag/pause", "{}", null).statusCode()).isEqualTo(401);
		assertThat(post("/jobs/" + job + "/cancel", "{}", null).statusCode()).isEqualTo(401);
		assertThat(get("/actuator/jobqueue/" + job, null).statusCode()).isEqualTo(401);
		assertThat(this.jobQueue.find(job).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		assertThat(get("/actuator/health", null).statusCode()).isEqualTo(200);

		HttpResponse<String> read = get("/actuator/jobqueue/" + job, "test-operator-secret");
		assertThat(read.statusCode()).isEqualTo(200);
		assertThat(read.body()).as("the operator sees values").contains("\\\"cat\\\"");
		assertThat(post("/actuator/jobqueue/" + job + "/cancel", "{}", "wrong-password").statusCode()).isEqualTo(401);
		assertThat(post("/actuator/jobqueue/" + job + "/cancel", "{}", "test-operator-secret").statusCode())
			.isEqualTo(200);
		assertThat(this.jobQueue.find(job).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
	}

	@Test
	void theJobApiIsBehindTheLoginAndItsValuesPolicy() throws Exception {
		long job = this.jobQueue.enqueue("tag", new ImageJobs.ImageRef(3, "secret-cat"));
		assertThat(get("/jobs/" + job, null).statusCode()).isEqualTo(401);
		assertThat(get("/chains/" + job, null).statusCode()).isEqualTo(401);
		assertThat(get("/jobs/" + (job + 1), null).statusCode()).as("no way to probe ids").isEqualTo(401);
		HttpResponse<String> read = get("/jobs/" + job, "test-operator-secret");
		assertThat(read.statusCode()).isEqualTo(200);
		assertThat(read.body()).as("the operator has the role show-values asks for").contains("secret-cat");
	}

	@Test
	void aCrossSiteFormPostToTheApiIsRefusedEvenWithTheOperatorsLogin() throws Exception {
		long job = this.jobQueue.enqueue("tag", new ImageJobs.ImageRef(4, "bird"));
		// What a browser sends with a form another site (here another port) posts,
		// a cached Basic login included.
		HttpRequest.Builder crossSite = HttpRequest.newBuilder(uri("/jobs/" + job + "/cancel"))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.header("Origin", "http://localhost:1")
			.header("Sec-Fetch-Site", "same-site")
			.POST(HttpRequest.BodyPublishers.noBody());
		HttpResponse<String> refused = this.http.send(authenticated(crossSite, "test-operator-secret").build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(refused.statusCode()).isEqualTo(403);
		assertThat(refused.body()).contains("nothing was changed");
		HttpRequest.Builder onlyOrigin = HttpRequest.newBuilder(uri("/jobs/" + job + "/cancel"))
			.header("Origin", "https://attacker.example")
			.POST(HttpRequest.BodyPublishers.noBody());
		assertThat(this.http
			.send(authenticated(onlyOrigin, "test-operator-secret").build(), HttpResponse.BodyHandlers.ofString())
			.statusCode()).isEqualTo(403);
		assertThat(this.jobQueue.find(job).orElseThrow().status()).isEqualTo(JobStatus.PENDING);

		// A script (curl) sends neither header and may.
		assertThat(post("/jobs/" + job + "/cancel", "{}", "test-operator-secret").statusCode()).isEqualTo(200);
		assertThat(this.jobQueue.find(job).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
	}

	@Test
	void theDashboardSendsStrangersToTheSignInFormAndKeepsCsrfProtection() throws Exception {
		long job = this.jobQueue.enqueue("tag", new ImageJobs.ImageRef(2, "dog"));

		HttpResponse<String> overview = get("/jobqueue/", null);
		assertThat(overview.statusCode()).isEqualTo(302);
		assertThat(overview.headers().firstValue("Location"))
			.hasValueSatisfying((location) -> assertThat(location).endsWith("/login"));
		assertThat(get("/login", null).body()).contains("name=\"_csrf\"");
		// The dashboard signs in with the form only, and its POSTs need the session's
		// CSRF token: the operator's
		// Basic credentials, which a browser would send along with another site's form,
		// are not enough.
		assertThat(get("/jobqueue/jobs/" + job, "test-operator-secret").statusCode()).isEqualTo(302);
		assertThat(post("/jobqueue/jobs/" + job + "/cancel", "", "test-operator-secret").statusCode()).isEqualTo(403);
		assertThat(this.jobQueue.find(job).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
	}

	private HttpResponse<String> post(String path, String json, String password) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json));
		return this.http.send(authenticated(request, password).build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path, String password) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
		return this.http.send(authenticated(request, password).build(), HttpResponse.BodyHandlers.ofString());
	}

	private static HttpRequest.Builder authenticated(HttpRequest.Builder request, String password) {
		if (password != null) {
			String credentials = "operator:" + password;
			request.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
		}
		return request;
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

}
