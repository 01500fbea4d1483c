package dev.jobqueue.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Over a real HTTP port: enqueue through the application's controller, watch the job on
 * the actuator.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@ExtendWith(OutputCaptureExtension.class)
class WebApplicationTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Test
	void enqueuesOverHttpAndTheActuatorShowsTheJobSucceed() throws Exception {
		HttpResponse<String> created = send(
				HttpRequest.newBuilder(uri("/greetings?name=web")).POST(HttpRequest.BodyPublishers.noBody()));
		assertThat(created.statusCode()).isEqualTo(200);
		String id = created.body().replaceAll("\\D", "");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> send(HttpRequest.newBuilder(uri("/actuator/jobqueue/" + id))).body(),
					(body) -> body.toLowerCase().contains("\"status\":\"succeeded\""));
		assertThat(send(HttpRequest.newBuilder(uri("/actuator/health"))).body()).contains("\"UP\"");
	}

	/**
	 * The Getting started application has no transaction manager, so
	 * {@code @Transactional} does nothing in it: the start-up log says so.
	 */
	@Test
	void theStartUpLogSaysTransactionalDoesNothingWithoutATransactionManager(CapturedOutput output) {
		assertThat(output).contains("The application has no transaction manager, so @Transactional does nothing here");
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
