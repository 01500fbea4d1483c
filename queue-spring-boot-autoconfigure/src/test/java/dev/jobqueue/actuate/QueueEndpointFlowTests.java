package dev.jobqueue.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.sqlite.SqliteStorage;
import dev.jobqueue.testing.MutableClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flow control seen and steered over HTTP: the state of the queue counts an ordered
 * type's due jobs held back by reason, {@code /actuator/jobqueue/keys/{type}} lists its
 * busiest and blocked keys with the failed job that blocks each, and retrying that job
 * through the endpoint releases the key.
 */
@SpringBootTest(classes = { ObservabilityTestApplication.class, QueueEndpointFlowTests.Handlers.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "jobqueue.worker.enabled=false", "management.endpoints.web.exposure.include=jobqueue",
				"management.endpoint.jobqueue.access=unrestricted" })
@DirtiesContext
class QueueEndpointFlowTests {

	static final JsonMapper json = JsonMapper.builder().build();

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) throws IOException {
		Path dir = Files.createTempDirectory("jobqueue-endpoint-flow");
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	@Autowired
	SqliteStorage storage;

	@Autowired
	HandlerRegistry handlers;

	@Autowired
	MutableClock clock;

	final HttpClient http = HttpClient.newHttpClient();

	@Test
	void heldJobsByReasonTheBusiestAndBlockedKeysAndARetryThatReleasesAKey() throws Exception {
		long blocking = this.queue.enqueue(JobRequest.of("charge", "c1-1").key("customer-1"));
		this.queue.enqueue(JobRequest.of("charge", "c1-2").key("customer-1"));
		this.queue.enqueue(JobRequest.of("charge", "c1-3").key("customer-1"));
		this.queue.enqueue(JobRequest.of("charge", "c2-1").key("customer-2"));
		this.queue.enqueue(JobRequest.of("charge", "c2-2").key("customer-2"));
		this.queue.enqueue(JobRequest.of("charge", "c3-1").key("customer-3"));
		List<ClaimedJob> first = claim();
		assertThat(first).extracting(ClaimedJob::key)
			.containsExactlyInAnyOrder("customer-1", "customer-2", "customer-3");
		ClaimedJob failing = first.stream().filter((job) -> job.id() == blocking).findFirst().orElseThrow();
		this.storage.jobs()
			.complete(List.of(Completion.failed(failing, "PAYMENT:DECLINED", "declined")), "w1", this.clock.instant());

		JsonNode flow = get("/actuator/jobqueue", 200).get("flow").get("charge");
		assertThat(json.convertValue(flow.get("limits"), Map.class)).containsEntry("rateLimit", "50/1s")
			.containsEntry("keyRateLimit", null)
			.containsEntry("keyConcurrency", 0)
			.containsEntry("ordered", true)
			.containsEntry("blockOnFailure", true);
		assertThat(flow.get("due").asLong()).isEqualTo(3);
		assertThat(json.convertValue(flow.get("throttled"), Map.class))
			.isEqualTo(Map.of("rate-limit", 0, "key-rate-limit", 0, "key-limit", 1, "blocked", 2));
		assertThat(flow.get("blockedKeys").asLong()).isOne();
		assertThat(flow.get("windowStarts").asLong()).isEqualTo(3);

		JsonNode keys = get("/actuator/jobqueue/keys/charge", 200);
		assertThat(keys.get("type").asString()).isEqualTo("charge");
		assertThat(keys.get("limits").get("ordered").asBoolean()).isTrue();
		assertThat(keys.get("keys").asLong()).isEqualTo(3);
		assertThat(keys.get("blockedKeys").asLong()).isOne();
		JsonNode busiest = keys.get("busiest");
		assertThat(busiest).hasSize(3);
		assertThat(json.convertValue(busiest.get(0), Map.class)).containsEntry("key", "customer-1")
			.containsEntry("pending", 2)
			.containsEntry("due", 2)
			.containsEntry("running", 0)
			.containsEntry("failed", 1)
			.containsEntry("failedJobId", (int) blocking)
			.containsEntry("blocked", true);
		assertThat(busiest.get(1).get("key").asString()).isEqualTo("customer-2");
		assertThat(busiest.get(1).get("running").asLong()).isOne();
		assertThat(keys.get("blocked")).hasSize(1);
		assertThat(keys.get("blocked").get(0).get("failedJobId").asLong()).isEqualTo(blocking);
		assertThat(get("/actuator/jobqueue/keys/charge?size=1", 200).get("busiest")).hasSize(1);

		JsonNode other = get("/actuator/jobqueue/keys/email", 200);
		assertThat(other.get("keys").asLong()).isZero();
		assertThat(other.get("limits").isNull()).as("no flow control here").isTrue();
		assertThat(get("/actuator/jobqueue/keys/charge?size=0", 400).get("message").asString())
			.contains("use 1 to 100");
		assertThat(get("/actuator/jobqueue/" + blocking + "/retry", 400).get("message").asString())
			.contains("/actuator/jobqueue/keys/{type}")
			.contains("POST");

		JsonNode retried = post("/actuator/jobqueue/" + blocking + "/retry", 200);
		assertThat(retried.get("applied").asBoolean()).isTrue();
		JsonNode released = get("/actuator/jobqueue", 200).get("flow").get("charge");
		assertThat(released.get("blockedKeys").asLong()).isZero();
		assertThat(released.get("throttled").get("blocked").asLong()).isZero();
		assertThat(released.get("throttled").get("key-limit").asLong()).as("the retried job goes first").isEqualTo(3);
		assertThat(this.queue.find(blocking).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
	}

	private List<ClaimedJob> claim() {
		return this.storage.jobs()
			.claim(new ClaimRequest("w1", 10, Set.of(), Map.of("charge", 10), Set.of(),
					this.clock.instant().plusSeconds(60), Map.of(), 10, this.handlers.flowControls()),
					this.clock.instant());
	}

	private JsonNode get(String path, int expectedStatus) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(uri(path)).GET().build(), expectedStatus);
	}

	private JsonNode post(String path, int expectedStatus) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{}"))
			.build(), expectedStatus);
	}

	private JsonNode send(HttpRequest request, int expectedStatus) throws IOException, InterruptedException {
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(request.uri() + " answered " + response.body()).isEqualTo(expectedStatus);
		return json.readTree(response.body());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	@Configuration(proxyBeanMethods = false)
	static class Handlers {

		@Bean
		Charges charges() {
			return new Charges();
		}

	}

	static class Charges {

		@JobHandler(value = "charge", ordered = true, rateLimit = "50/1s")
		void charge(String payload) {
		}

	}

}
