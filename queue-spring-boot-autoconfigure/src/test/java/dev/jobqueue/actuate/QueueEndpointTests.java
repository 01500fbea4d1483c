package dev.jobqueue.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.JobSchedules;
import dev.jobqueue.Schedule;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.retention.JobQueueMaintenance;
import dev.jobqueue.sqlite.SqliteStorage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The five questions, asked over HTTP of a running application whose queue file is seeded
 * by {@link QueueSeed}, with write access granted and values shown. Write operations run
 * last: they change the seeded state.
 */
@SpringBootTest(classes = ObservabilityTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "jobqueue.worker.enabled=false", "jobqueue.observability.top-errors=2",
				"jobqueue.observability.payload-preview=10",
				"management.endpoints.web.exposure.include=jobqueue,health",
				"management.endpoint.health.show-details=always", "management.endpoint.jobqueue.access=unrestricted",
				"management.endpoint.jobqueue.show-values=always" })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
// Closed after the class, not by a JVM shutdown hook: no context (web server, worker,
// housekeeping) is left
// for the test JVM's exit to stop, and a slow close shows here rather than as a killed
// fork.
@DirtiesContext
class QueueEndpointTests {

	static final Path DIR = tempDir();

	static Map<String, Long> ids;

	static final JsonMapper json = JsonMapper.builder().build();

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) {
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + DIR.resolve("queue.db"));
	}

	@LocalServerPort
	int port;

	@Autowired
	SqliteStorage storage;

	@Autowired
	JobQueueMaintenance maintenance;

	@Autowired
	JobSchedules schedules;

	final HttpClient http = HttpClient.newHttpClient();

	@BeforeEach
	void seedOnce() throws Exception {
		if (ids == null) {
			ids = QueueSeed.seed(this.storage.jobs(), this.storage.database().dataSource(),
					Instant.parse(ObservabilityTestApplication.NOW));
		}
	}

	@Test
	@Order(1)
	void countsByStatusAndByType() throws Exception {
		JsonNode queue = get("/actuator/jobqueue", 200);
		assertThat(queue.get("at").asString()).isEqualTo(ObservabilityTestApplication.NOW);
		JsonNode counts = queue.get("counts");
		assertThat(counts.get("pending").asLong()).isEqualTo(5);
		assertThat(counts.get("running").asLong()).isEqualTo(3);
		assertThat(counts.get("succeeded").asLong()).isEqualTo(4);
		assertThat(counts.get("failed").asLong()).isEqualTo(5);
		assertThat(counts.get("cancelled").asLong()).isEqualTo(1);
		assertThat(counts.get("total").asLong()).isEqualTo(18);
		JsonNode email = queue.get("byType").get("email");
		assertThat(json.convertValue(email, Map.class))
			.isEqualTo(Map.of("pending", 2, "running", 2, "succeeded", 2, "failed", 2, "cancelled", 1));
		assertThat(fieldNames(queue.get("byType"))).containsExactly("email", "invoice", "orphan", "report",
				"thumbnail");
	}

	@Test
	@Order(2)
	void oldestClaimableJobIgnoresJobsInBackoffAndOldestRunningJobsNameTheirWorker() throws Exception {
		JsonNode queue = get("/actuator/jobqueue", 200);
		JsonNode pending = queue.get("pending");
		// p4's only worker is dead and no worker handles p5: they are held, not
		// claimable.
		assertThat(pending.get("claimable").asLong()).isEqualTo(2);
		assertThat(pending.get("scheduled").asLong()).isEqualTo(3);
		// p3 was created first, but it waits out a backoff: p1 is the oldest that a
		// worker could take.
		JsonNode oldest = pending.get("oldestClaimable");
		assertThat(oldest.get("id").asLong()).isEqualTo(ids.get("p1"));
		assertThat(oldest.get("waitingSeconds").asDouble()).isEqualTo(120.0);
		List<Long> running = new ArrayList<>();
		queue.get("oldestRunning").forEach((job) -> running.add(job.get("id").asLong()));
		assertThat(running).containsExactly(ids.get("r2"), ids.get("r1"), ids.get("r3"));
		JsonNode first = queue.get("oldestRunning").get(0);
		assertThat(first.get("workerId").asString()).isEqualTo("w-alive");
		assertThat(first.get("startedAt").asString()).isEqualTo("2026-01-01T11:10:00Z");
		assertThat(first.get("heartbeatAt").asString()).isEqualTo("2026-01-01T11:26:40Z");
		assertThat(first.get("runningSeconds").asDouble()).isEqualTo(3000.0);
		assertThat(first.get("heartbeatAgeSeconds").asDouble()).isEqualTo(2000.0);
		JsonNode stuck = queue.get("stuck");
		assertThat(stuck.get("after").asString()).isEqualTo("PT15M");
		assertThat(stuck.get("count").asLong()).isEqualTo(1);
		assertThat(stuck.get("jobs").get(0).get("id").asLong()).isEqualTo(ids.get("r2"));
	}

	@Test
	@Order(3)
	void retryDistributionOverUnfinishedAndFailedJobs() throws Exception {
		JsonNode retries = get("/actuator/jobqueue", 200).get("retries");
		assertThat(json.convertValue(retries.get("overall"), Map.class))
			.isEqualTo(Map.of("0", 3, "1", 4, "2", 1, "3", 5));
		assertThat(json.convertValue(retries.get("byType").get("thumbnail"), Map.class))
			.isEqualTo(Map.of("1", 1, "2", 1, "3", 2));
	}

	@Test
	@Order(4)
	void topErrorCodesInOrderWithTheRestAsOther() throws Exception {
		JsonNode errors = get("/actuator/jobqueue", 200).get("errors");
		JsonNode top = errors.get("top");
		assertThat(top).hasSize(2);
		assertThat(top.get(0).get("code").asString()).isEqualTo("TIMEOUT:HANDLER");
		assertThat(top.get(0).get("count").asLong()).isEqualTo(4);
		assertThat(top.get(0).get("failed").asLong()).isEqualTo(3);
		assertThat(top.get(0).get("retrying").asLong()).isEqualTo(1);
		assertThat(json.convertValue(top.get(0).get("byType"), Map.class)).isEqualTo(Map.of("email", 3, "report", 1));
		assertThat(top.get(1).get("code").asString()).isEqualTo("DEPENDENCY:S3");
		assertThat(top.get(1).get("count").asLong()).isEqualTo(3);
		assertThat(top.get(1).get("retrying").asLong()).isEqualTo(2);
		assertThat(errors.get("other").asLong()).isEqualTo(1);
		assertThat(errors.get("distinctCodes").asInt()).isEqualTo(3);
	}

	@Test
	@Order(5)
	void pendingTypesWithoutLiveWorkerWorkersRetentionAndSqlite() throws Exception {
		JsonNode queue = get("/actuator/jobqueue", 200);
		assertThat(json.convertValue(queue.get("unhandled"), Map.class)).isEqualTo(Map.of("orphan", 1, "report", 1));
		JsonNode workers = queue.get("workers");
		assertThat(workers).hasSize(2);
		assertThat(workers.get(0).get("workerId").asString()).isEqualTo("w-dead");
		assertThat(workers.get(0).get("alive").asBoolean()).isFalse();
		assertThat(workers.get(1).get("alive").asBoolean()).isTrue();
		JsonNode retention = queue.get("retention");
		assertThat(retention.get("succeeded").asString()).isEqualTo("PT720H");
		assertThat(retention.get("failed").asString()).isEqualTo("PT2160H");
		this.maintenance.purgeExpired();
		JsonNode lastCleanup = get("/actuator/jobqueue", 200).get("retention").get("lastCleanup");
		assertThat(lastCleanup.get("outcome").asString()).isEqualTo("COMPLETED");
		assertThat(lastCleanup.get("startedAt").asString()).isEqualTo(ObservabilityTestApplication.NOW);
		assertThat(lastCleanup.get("deleted").isObject()).isTrue();
		JsonNode sqlite = queue.get("storage");
		assertThat(sqlite.get("store").asString()).isEqualTo("sqlite");
		assertThat(sqlite.get("location").asString()).endsWith("queue.db");
		assertThat(sqlite.get("databaseBytes").asLong()).isPositive();
		assertThat(sqlite.get("pageCount").asLong()).isPositive();
		assertThat(sqlite.get("walBytes").asLong()).isNotNegative();
		assertThat(sqlite.get("freePages").asLong()).isNotNegative();
		assertThat(sqlite.get("busyRetries").asLong()).isZero();
	}

	@Test
	@Order(6)
	void oneJobWithPayloadPreviewAttemptsAndTimeline() throws Exception {
		JsonNode job = get("/actuator/jobqueue/" + ids.get("timeline"), 200);
		assertThat(job.get("job").get("status").asString()).isEqualTo("succeeded");
		assertThat(job.get("job").get("attempts").asInt()).isEqualTo(2);
		assertThat(job.get("payload").get("preview").asString()).isEqualTo("{\"invoice\"");
		assertThat(job.get("payload").get("truncated").asBoolean()).isTrue();
		assertThat(job.get("payload").get("length").asLong()).isEqualTo(43);
		assertThat(job.get("result").get("preview").asString()).isEqualTo("\"sent\"");
		JsonNode attempts = job.get("attempts");
		assertThat(attempts).hasSize(2);
		assertThat(attempts.get(0).get("outcome").asString()).isEqualTo("FAILED");
		assertThat(attempts.get(0).get("errorCode").asString()).isEqualTo("DEPENDENCY:PDF");
		assertThat(attempts.get(0).get("workerId").asString()).isEqualTo("w-alive");
		assertThat(attempts.get(1).get("outcome").asString()).isEqualTo("SUCCEEDED");
		List<String> events = new ArrayList<>();
		job.get("events").forEach((event) -> events.add(event.get("event").asString()));
		assertThat(events).containsExactly("ENQUEUED", "CLAIMED", "RETRY_SCHEDULED", "CLAIMED", "SUCCEEDED");
	}

	@Test
	@Order(7)
	void listsFilteredByStatusTypeAndErrorCodeNewestFirstWithPaging() throws Exception {
		JsonNode first = get("/actuator/jobqueue/failed?size=2", 200);
		assertThat(ids(first)).containsExactly(ids.get("f5"), ids.get("f4"));
		assertThat(first.get("nextBefore").asLong()).isEqualTo(ids.get("f4"));
		JsonNode second = get("/actuator/jobqueue/failed?size=2&before=" + ids.get("f4"), 200);
		assertThat(ids(second)).containsExactly(ids.get("f3"), ids.get("f2"));
		JsonNode last = get("/actuator/jobqueue/failed?size=2&before=" + ids.get("f2"), 200);
		assertThat(ids(last)).containsExactly(ids.get("f1"));
		assertThat(last.get("nextBefore").isNull()).isTrue();
		assertThat(ids(get("/actuator/jobqueue/pending?type=email", 200))).containsExactly(ids.get("p2"),
				ids.get("p1"));
		assertThat(ids(get("/actuator/jobqueue/all?errorCode=TIMEOUT:HANDLER", 200))).containsExactly(ids.get("f5"),
				ids.get("f2"), ids.get("f1"), ids.get("p2"));
		assertThat(ids(get("/actuator/jobqueue/all?type=report", 200))).containsExactly(ids.get("f5"), ids.get("p4"));
		JsonNode keyed = get("/actuator/jobqueue/all?key=customer-7", 200);
		assertThat(ids(keyed)).containsExactly(ids.get("f2"), ids.get("p1"));
		assertThat(keyed.get("jobs").get(0).get("key").asString()).isEqualTo("customer-7");
		assertThat(ids(get("/actuator/jobqueue/pending?key=customer-7", 200))).containsExactly(ids.get("p1"));
		assertThat(get("/actuator/jobqueue/pending?type=email", 200).get("jobs").get(0).get("key").isNull()).isTrue();
		assertThat(get("/actuator/jobqueue/" + ids.get("s1"), 200).get("job").get("key").asString())
			.isEqualTo("customer-8");
		assertThat(get("/actuator/jobqueue/failed?size=101", 400).get("message").asString())
			.isEqualTo("Page size 101 is out of range: use 1 to 100 and page on with ?before=<nextBefore>");
		assertThat(get("/actuator/jobqueue/late", 400).get("message").asString())
			.startsWith("'late' is neither a job id nor a status");
		assertThat(get("/actuator/jobqueue/999999", 404).get("message").asString())
			.startsWith("There is no job 999999");
	}

	@Test
	@Order(8)
	void aStuckJobShowsInTheComponentWhileTheApplicationStaysUp() throws Exception {
		JsonNode health = get("/actuator/health/jobqueue", 200);
		assertThat(health.get("status").asString()).isEqualTo("DEGRADED");
		assertThat(health.get("details").get("stuck").asLong()).isEqualTo(1);
		assertThat(health.get("details").get("problems").get(0).asString())
			.isEqualTo("1 running job(s) without heartbeat for more than PT15M");
		assertThat(health.get("details").get("stuckJobs").get(0).asString())
			.startsWith("job " + ids.get("r2") + " (thumbnail) on worker w-alive");
		JsonNode application = get("/actuator/health", 200);
		assertThat(application.get("status").asString()).isEqualTo("UP");
		assertThat(application.get("components").get("jobqueue").get("status").asString()).isEqualTo("DEGRADED");
	}

	@Test
	@Order(9)
	void schedulesWithTheirNextRunAndPausedTypes() throws Exception {
		this.schedules.register("hourly-report", "report", Schedule.every(Duration.ofHours(1)), "all");
		JsonNode schedules = get("/actuator/jobqueue/schedules", 200).get("schedules");
		assertThat(schedules).hasSize(1);
		assertThat(schedules.get(0).get("name").asString()).isEqualTo("hourly-report");
		assertThat(schedules.get(0).get("expression").asString()).isEqualTo("every:PT1H");
		assertThat(schedules.get(0).get("nextRunAt").asString()).isEqualTo("2026-01-01T13:00:00Z");
		assertThat(get("/actuator/jobqueue/paused", 200).get("paused")).isEmpty();

		JsonNode paused = post("/actuator/jobqueue/report/pause", 200);
		assertThat(paused.get("applied").asBoolean()).isTrue();
		assertThat(paused.get("status").asString()).isEqualTo("paused");
		assertThat(post("/actuator/jobqueue/report/pause", 200).get("applied").asBoolean()).isFalse();
		JsonNode pausedTypes = get("/actuator/jobqueue/paused", 200).get("paused");
		assertThat(pausedTypes).hasSize(1);
		assertThat(pausedTypes.get(0).get("type").asString()).isEqualTo("report");
		assertThat(pausedTypes.get(0).get("since").asString()).isEqualTo(ObservabilityTestApplication.NOW);
		assertThat(get("/actuator/jobqueue/schedules", 200).get("schedules").get(0).get("paused").asBoolean()).isTrue();

		// A paused type is listed by the overview, and its due jobs are held: neither
		// claimable nor late.
		assertThat(post("/actuator/jobqueue/email/pause", 200).get("applied").asBoolean()).isTrue();
		JsonNode queue = get("/actuator/jobqueue", 200);
		List<String> overviewPaused = new ArrayList<>();
		queue.get("paused").forEach((type) -> overviewPaused.add(type.get("type").asString()));
		assertThat(overviewPaused).containsExactly("email", "report");
		assertThat(queue.get("pending").get("claimable").asLong()).isZero();
		assertThat(queue.get("pending").get("oldestClaimable").isNull()).isTrue();
		assertThat(post("/actuator/jobqueue/email/resume", 200).get("applied").asBoolean()).isTrue();
		assertThat(get("/actuator/jobqueue", 200).get("pending").get("claimable").asLong()).isEqualTo(2);

		assertThat(post("/actuator/jobqueue/report/resume", 200).get("applied").asBoolean()).isTrue();
		assertThat(get("/actuator/jobqueue/paused", 200).get("paused")).isEmpty();
	}

	@Test
	@Order(10)
	void retriesAFailedJobAndCancelsAPendingOne() throws Exception {
		JsonNode retried = post("/actuator/jobqueue/" + ids.get("f4") + "/retry", 200);
		assertThat(retried.get("applied").asBoolean()).isTrue();
		assertThat(retried.get("status").asString()).isEqualTo("pending");
		JsonNode cancelled = post("/actuator/jobqueue/" + ids.get("p5") + "/cancel", 200);
		assertThat(cancelled.get("applied").asBoolean()).isTrue();
		assertThat(cancelled.get("status").asString()).isEqualTo("cancelled");
		List<String> events = new ArrayList<>();
		get("/actuator/jobqueue/" + ids.get("f4"), 200).get("events")
			.forEach((event) -> events.add(event.get("event").asString()));
		assertThat(events).containsExactly("RETRIED");
	}

	@Test
	@Order(10)
	void retriesAFailedJobForgettingItsSteps() throws Exception {
		long id = ids.get("f3");
		try (Connection connection = this.storage.database().dataSource().getConnection();
				PreparedStatement insert = connection.prepareStatement("INSERT INTO job_steps (job_id, name, position, "
						+ "result, run, attempt, started_at, recorded_at) VALUES (?, 'upload', 1, '\"s3://a\"', 1, 1, "
						+ "0, 0)")) {
			insert.setLong(1, id);
			insert.executeUpdate();
		}
		assertThat(get("/actuator/jobqueue/" + id, 200).get("steps")).hasSize(1);

		JsonNode retried = post("/actuator/jobqueue/" + id + "/retry-forget-steps", 200);

		assertThat(retried.get("applied").asBoolean()).isTrue();
		assertThat(retried.get("status").asString()).isEqualTo("pending");
		JsonNode job = get("/actuator/jobqueue/" + id, 200);
		assertThat(job.get("steps")).isEmpty();
		assertThat(post("/actuator/jobqueue/" + ids.get("s1") + "/retry-forget-steps", 409).get("message").asString())
			.isEqualTo("Only failed or cancelled jobs can be retried; this one is succeeded");
	}

	@Test
	@Order(11)
	void aWriteOnOneJobNeedsNoBody() throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri("/actuator/jobqueue/report/pause"))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		assertThat(post("/actuator/jobqueue/report/resume", 200).get("applied").asBoolean()).isTrue();
	}

	@Test
	@Order(11)
	void writesThatCannotApplySayWhyWithTheirStatus() throws Exception {
		JsonNode wrongState = post("/actuator/jobqueue/" + ids.get("s1") + "/retry", 409);
		assertThat(wrongState.get("applied").asBoolean()).isFalse();
		assertThat(wrongState.get("status").asString()).isEqualTo("succeeded");
		assertThat(wrongState.get("message").asString())
			.isEqualTo("Only failed or cancelled jobs can be retried; this one is succeeded");
		assertThat(post("/actuator/jobqueue/999999/cancel", 404).get("message").asString())
			.startsWith("There is no job 999999");
		assertThat(post("/actuator/jobqueue/" + ids.get("p4") + "/delete", 400).get("message").asString())
			.startsWith("Unknown action 'delete': use POST /actuator/jobqueue/{id}/retry");
		assertThat(post("/actuator/jobqueue/email/retry", 400).get("message").asString())
			.startsWith("'email' is not a job id");
	}

	@Test
	@Order(12)
	void retriesEveryFailedJobOfATypeAfterADryRun() throws Exception {
		String filter = "{\"type\":\"email\",\"status\":\"failed\",\"errorCode\":\"TIMEOUT:HANDLER\"";
		JsonNode dryRun = post("/actuator/jobqueue/retry", filter + ",\"dryRun\":true}", 200);
		assertThat(dryRun.get("matched").asLong()).isEqualTo(2);
		assertThat(dryRun.get("applied").asLong()).isZero();
		assertThat(get("/actuator/jobqueue/" + ids.get("f1"), 200).get("job").get("status").asString())
			.isEqualTo("failed");

		JsonNode retried = post("/actuator/jobqueue/retry", filter + "}", 200);

		assertThat(retried.get("applied").asLong()).isEqualTo(2);
		assertThat(retried.get("batches").asInt()).isEqualTo(1);
		for (String name : List.of("f1", "f2")) {
			JsonNode job = get("/actuator/jobqueue/" + ids.get(name), 200);
			assertThat(job.get("job").get("status").asString()).isEqualTo("pending");
			assertThat(job.get("events").get(job.get("events").size() - 1).get("event").asString())
				.isEqualTo("RETRIED");
		}
		assertThat(get("/actuator/jobqueue/" + ids.get("f5"), 200).get("job").get("status").asString())
			.isEqualTo("failed");
		JsonNode nothing = post("/actuator/jobqueue/retry", filter + "}", 200);
		assertThat(nothing.get("applied").asLong()).isZero();
		assertThat(nothing.get("message").asString()).startsWith("No job matches type=email, status=failed");
	}

	@Test
	@Order(12)
	void aBulkActionAndASearchTakeAKey() throws Exception {
		JsonNode dryRun = post("/actuator/jobqueue/delete", "{\"key\":\"customer-8\",\"dryRun\":true}", 200);
		assertThat(dryRun.get("matched").asLong()).isEqualTo(1);
		assertThat(dryRun.get("applied").asLong()).isZero();
		JsonNode found = get("/actuator/jobqueue/search?q=customer-8", 200);
		assertThat(found.get("matches")).hasSize(1);
		assertThat(found.get("matches").get(0).get("job").get("id").asLong()).isEqualTo(ids.get("s1"));
		assertThat(found.get("matches").get(0).get("matchedOn").asString()).isEqualTo("key");
	}

	@Test
	@Order(12)
	void bulkActionsRefuseFiltersThatCannotMatch() throws Exception {
		assertThat(post("/actuator/jobqueue/42", "{}", 400).get("message").asString())
			.isEqualTo("'42' is not a bulk action: use retry, cancel or delete");
		assertThat(post("/actuator/jobqueue/delete", "{\"status\":\"pending\"}", 400).get("message").asString())
			.isEqualTo("A bulk delete applies to succeeded, failed or cancelled jobs, not to pending ones: use one of "
					+ "those statuses or none");
		assertThat(post("/actuator/jobqueue/retry", "{\"enqueuedFrom\":\"yesterday\"}", 400).get("message").asString())
			.startsWith("enqueuedFrom='yesterday' is not an instant");
		assertThat(post("/actuator/jobqueue/purge", "{}", 400).get("message").asString())
			.isEqualTo("'purge' is not a bulk action: use retry, cancel or delete");
	}

	@Test
	@Order(12)
	void listsKeysAndBulkFiltersRefuseATypeKeyOrErrorCodeLongerThanEnqueueTakesWithoutEchoingIt() throws Exception {
		String tooLong = "z".repeat(EnqueueLimits.MAX_TYPE_LENGTH + 1);
		assertThat(EnqueueLimits.MAX_KEY_LENGTH).isEqualTo(EnqueueLimits.MAX_TYPE_LENGTH);
		for (JsonNode refused : List.of(get("/actuator/jobqueue/failed?type=" + tooLong, 400),
				get("/actuator/jobqueue/failed?errorCode=" + tooLong, 400),
				get("/actuator/jobqueue/pending?key=" + tooLong, 400), get("/actuator/jobqueue/keys/" + tooLong, 400),
				post("/actuator/jobqueue/retry", "{\"type\":\"" + tooLong + "\",\"dryRun\":true}", 400),
				post("/actuator/jobqueue/delete", "{\"errorCode\":\"" + tooLong + "\",\"dryRun\":true}", 400),
				post("/actuator/jobqueue/cancel", "{\"key\":\"" + tooLong + "\",\"dryRun\":true}", 400))) {
			assertThat(refused.get("message").asString()).containsPattern("is at most 200 characters long")
				.contains("(this one has 201)");
			assertThat(refused.toString()).doesNotContain("zzzzzzzzzz");
		}
		// At the bound, the filters are taken.
		get("/actuator/jobqueue/failed?type=" + tooLong.substring(1), 200);
		get("/actuator/jobqueue/keys/" + tooLong.substring(1), 200);
	}

	@Test
	@Order(12)
	void searchesByErrorCodeAndPayload() throws Exception {
		JsonNode found = get("/actuator/jobqueue/search?q=DEPENDENCY:S3", 200);
		assertThat(found.get("matches").get(0).get("job").get("id").asLong()).isEqualTo(ids.get("f3"));
		assertThat(found.get("matches").get(0).get("matchedOn").asString()).isEqualTo("error-code");
		assertThat(found.get("valuesSearched").asBoolean()).isTrue();
		assertThat(get("/actuator/jobqueue/search", 400).get("message").asString())
			.startsWith("A search needs ?q=<text>");
		assertThat(get("/actuator/jobqueue/search?q=x&window=0", 400).get("message").asString())
			.startsWith("A search window of 0 jobs is out of range");
	}

	private List<Long> ids(JsonNode page) {
		List<Long> result = new ArrayList<>();
		page.get("jobs").forEach((job) -> result.add(job.get("id").asLong()));
		return result;
	}

	private static List<String> fieldNames(JsonNode node) {
		List<String> names = new ArrayList<>();
		node.propertyNames().forEach(names::add);
		return names;
	}

	private JsonNode get(String path, int expectedStatus) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(uri(path)).GET().build(), expectedStatus);
	}

	private JsonNode post(String path, int expectedStatus) throws IOException, InterruptedException {
		return post(path, "{}", expectedStatus);
	}

	private JsonNode post(String path, String body, int expectedStatus) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), expectedStatus);
	}

	private JsonNode send(HttpRequest request, int expectedStatus) throws IOException, InterruptedException {
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(request.uri() + " answered " + response.body()).isEqualTo(expectedStatus);
		return response.body().isEmpty() ? json.nullNode() : json.readTree(response.body());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	private static Path tempDir() {
		try {
			return Files.createTempDirectory("jobqueue-endpoint");
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
