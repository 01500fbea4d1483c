package dev.jobqueue.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint on a real PostgreSQL database that goes away under it (dropped, its
 * connections ended; every new one refused): reads and writes are answered 503 in the
 * endpoint's words, saying what to check, not Boot's bare 500, and without the server's
 * message (it may name the server and the user).
 */
@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "jobqueue.worker.enabled=false", "jobqueue.datasource.connection-timeout=2s",
				"management.endpoints.web.exposure.include=jobqueue",
				"management.endpoint.jobqueue.access=unrestricted", "management.endpoint.jobqueue.show-values=always" })
@DirtiesContext
class QueueEndpointUnreachableDatabaseTests {

	static String database;

	@DynamicPropertySource
	static void queueDatabase(DynamicPropertyRegistry registry) {
		database = PostgresTestDatabase.createDatabase();
		registry.add("jobqueue.datasource.url", () -> PostgresServer.urlOf(database));
	}

	@AfterAll
	static void dropDatabase() {
		PostgresTestDatabase.dropDatabase(database);
	}

	@LocalServerPort
	int port;

	final HttpClient http = HttpClient.newHttpClient();

	@Test
	void aDatabaseThatRefusesConnectionsIsAnswered503InTheEndpointsOwnWords() throws Exception {
		assertThat(send("GET", "/actuator/jobqueue").statusCode()).isEqualTo(200);
		PostgresTestDatabase.dropDatabase(database);

		for (String[] request : new String[][] { { "GET", "/actuator/jobqueue" },
				{ "GET", "/actuator/jobqueue/failed" }, { "POST", "/actuator/jobqueue/report/pause" },
				{ "POST", "/actuator/jobqueue/7/retry" } }) {
			HttpResponse<String> answer = send(request[0], request[1]);
			assertThat(answer.statusCode()).as(request[0] + " " + request[1] + ": " + answer.body()).isEqualTo(503);
			assertThat(answer.headers().firstValue("Content-Type"))
				.hasValueSatisfying((type) -> assertThat(type).contains("json"));
			assertThat(answer.body()).contains("\"status\":503")
				.contains("The queue's database refuses connections")
				.contains("jobqueue.datasource.url")
				.doesNotContain(database);
		}
	}

	private HttpResponse<String> send(String method, String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
