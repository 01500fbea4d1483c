package dev.jobqueue.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The tool on a queue whose application's worker runs in this JVM, on the same database:
 * every command, and the bad input each refuses, changing nothing while jobs it would
 * change are there. The commands run in this JVM through the tool's entry point; the
 * built jar runs as a process where only a process shows it (start-up from the jar, exit
 * codes, output as a script reads it). Each store's test class says how to reach its
 * database.
 */
abstract class CliScenarios {

	protected StoreFixture db;

	private WorkerHarness harness;

	private JobWorker worker;

	private ExecutorService executor;

	private final AtomicInteger flakyRuns = new AtomicInteger();

	private final AtomicInteger payRuns = new AtomicInteger();

	private final CountDownLatch release = new CountDownLatch(1);

	private final Set<Long> blocked = ConcurrentHashMap.newKeySet();

	/** A migrated queue for one test. */
	protected abstract StoreFixture createQueue();

	/** The options that point the tool at the test's queue. */
	protected abstract String target();

	/** Writes a migration this tool does not know into the queue's schema history. */
	protected abstract void writeNewerSchemaVersion();

	@BeforeEach
	void startApplicationWorker() {
		this.db = createQueue();
		this.harness = WorkerHarness.onSystemClock(this.db)
			.concurrency(2)
			.pollInterval(Duration.ofMillis(100))
			.lease(Duration.ofSeconds(30))
			.shutdownTimeout(Duration.ofSeconds(5))
			.handle(HandlerDefinition.of("ok", (payload, context) -> null))
			.handle(HandlerDefinition.of("pay", (payload, context) -> {
				this.payRuns.incrementAndGet();
				return null;
			}))
			.handle(HandlerDefinition.of("flaky", (payload, context) -> {
				if (this.flakyRuns.incrementAndGet() == 1) {
					throw new IllegalStateException("payment API down");
				}
				return null;
			}))
			.handle(HandlerDefinition.of("block", (payload, context) -> {
				this.blocked.add(context.jobId());
				this.release.await(60, TimeUnit.SECONDS);
				return null;
			}));
		this.executor = Executors.newFixedThreadPool(2);
		this.worker = this.harness.worker(WorkerIds.newId(), this.executor);
		this.worker.start();
	}

	@AfterEach
	void stopApplicationWorker() {
		this.release.countDown();
		if (this.worker != null) {
			this.worker.stop();
		}
		if (this.executor != null) {
			this.executor.shutdownNow();
		}
		if (this.db != null) {
			this.db.close();
		}
	}

	/** The tool run in this JVM on the test's queue. */
	protected Cli.Run cli(String... args) {
		return Cli.run(onTheQueue(args));
	}

	/** The built jar run as a process on the test's queue. */
	protected Cli.Run jar(String... args) {
		return Cli.jar(onTheQueue(args));
	}

	private String[] onTheQueue(String... args) {
		List<String> all = new ArrayList<>(List.of(args));
		all.add(target());
		return all.toArray(String[]::new);
	}

	/**
	 * Runs a command that must be refused with {@code exitCode} and change nothing: each
	 * job's status, each job's count of events and the paused types are the same after
	 * it. The caller sees to it that nothing else moves meanwhile (no job due for the
	 * worker) and that jobs the command would change are there.
	 */
	protected Cli.Run refused(int exitCode, String... args) {
		QueueState before = queueState();
		assertThat(before.statuses()).as("jobs the refusal could harm").isNotEmpty();
		Cli.Run run = cli(args);
		assertThat(run.exitCode()).as(run.toString()).isEqualTo(exitCode);
		assertThat(queueState()).as("the queue after " + String.join(" ", args)).isEqualTo(before);
		return run;
	}

	/**
	 * What a refused command must leave as it was.
	 *
	 * @param statuses each job as {@code id:status}
	 * @param events each job's count of events as {@code id:count}
	 * @param paused the paused types
	 */
	record QueueState(List<Object> statuses, List<Object> events, List<String> paused) {

	}

	private QueueState queueState() {
		return new QueueState(this.db.column("SELECT id || ':' || status FROM jobs ORDER BY id"),
				this.db.column("SELECT job_id || ':' || count(*) FROM job_events GROUP BY job_id ORDER BY job_id"),
				this.harness.queue.pausedTypes().stream().map(Object::toString).sorted().toList());
	}

	private long enqueue(JobRequest request) {
		return this.harness.queue.enqueue(request);
	}

	private void awaitStatus(long id, JobStatus status) {
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> this.harness.queue.find(id).orElseThrow().status() == status);
	}

	@Test
	void statusJobsAndShowWhileTheApplicationWorks() {
		List<Long> done = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			done.add(enqueue(JobRequest.of("ok", "{\"n\":" + i + "}")));
		}
		long failed = enqueue(JobRequest.of("flaky", "{}").maxAttempts(1));
		done.forEach((id) -> awaitStatus(id, JobStatus.SUCCEEDED));
		awaitStatus(failed, JobStatus.FAILED);

		Cli.Run status = cli("status", "--json");
		assertThat(status.exitCode()).as(status.toString()).isZero();
		JsonNode json = status.json();
		assertThat(json.get("counts").get("succeeded").asLong()).isEqualTo(3);
		assertThat(json.get("counts").get("failed").asLong()).isEqualTo(1);
		assertThat(json.get("byType").get("ok").get("succeeded").asLong()).isEqualTo(3);
		assertThat(json.get("errors").get("top")).hasSize(1);
		assertThat(json.get("workers")).hasSize(1);
		assertThat(json.get("workers").get(0).get("alive").asBoolean()).isTrue();
		Cli.Run human = cli("status");
		assertThat(human.exitCode()).as(human.toString()).isZero();
		assertThat(human.out()).contains("succeeded 3", "failed 1", "Workers  1 (1 alive)");

		Cli.Run failedJobs = cli("jobs", "--status=failed", "--json");
		assertThat(failedJobs.exitCode()).as(failedJobs.toString()).isZero();
		assertThat(failedJobs.json().get("jobs")).hasSize(1);
		assertThat(failedJobs.json().get("jobs").get(0).get("id").asLong()).isEqualTo(failed);
		String errorCode = failedJobs.json().get("jobs").get(0).get("errorCode").asString();
		Cli.Run byCode = cli("jobs", "--error-code=" + errorCode, "--json");
		assertThat(byCode.json().get("jobs")).hasSize(1);
		Cli.Run first = cli("jobs", "--type=ok", "--limit=2", "--json");
		assertThat(first.json().get("jobs")).hasSize(2);
		long nextBefore = first.json().get("nextBefore").asLong();
		Cli.Run second = cli("jobs", "--type=ok", "--limit=2", "--before=" + nextBefore, "--json");
		assertThat(second.json().get("jobs")).hasSize(1);
		assertThat(second.json().get("jobs").get(0).get("id").asLong()).isEqualTo(done.get(0));
		assertThat(second.json().get("nextBefore").isNull()).isTrue();
		Cli.Run table = cli("jobs", "--type=ok");
		assertThat(table.out()).contains("ID", "succeeded");
		Cli.Run none = cli("jobs", "--type=nobody");
		assertThat(none.exitCode()).as(none.toString()).isEqualTo(1);

		Cli.Run show = cli("show", Long.toString(failed));
		assertThat(show.exitCode()).as(show.toString()).isZero();
		assertThat(show.out()).contains("Job #" + failed, "flaky", "failed", "payment API down", "Attempts (1)");
		Cli.Run showJson = cli("show", Long.toString(failed), "--json");
		assertThat(showJson.json().get("job").get("status").asString()).isEqualTo("failed");
		assertThat(showJson.json().get("attempts")).hasSize(1);
		assertThat(showJson.json().get("events").size()).isGreaterThanOrEqualTo(3);
	}

	@Test
	void retryOfAFailedJobWritesItsEventAndRunsItOnceMore() {
		long id = enqueue(JobRequest.of("flaky", "{}").maxAttempts(1));
		awaitStatus(id, JobStatus.FAILED);

		Cli.Run retry = cli("retry", Long.toString(id));
		assertThat(retry.exitCode()).as(retry.toString()).isZero();
		assertThat(retry.out()).contains("Job " + id + " retried");
		awaitStatus(id, JobStatus.SUCCEEDED);
		assertThat(this.flakyRuns).hasValue(2);
		JsonNode events = cli("show", Long.toString(id), "--json").json().get("events");
		List<String> names = new ArrayList<>();
		events.forEach((event) -> names.add(event.get("event").asString().toLowerCase()));
		assertThat(names).contains("retried");

		Cli.Run again = refused(1, "retry", Long.toString(id));
		assertThat(again.out()).contains("is succeeded", "nothing changed");
		assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
	}

	/**
	 * Puts {@code count} new jobs of a type, never run, in {@code failed} with an error
	 * code, as an outage would leave them: enqueued while the type is paused, then failed
	 * in one statement.
	 */
	private void failedJobs(String type, int count, String errorCode) {
		this.harness.queue.pause(type);
		List<JobRequest> requests = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			requests.add(JobRequest.of(type, "{\"order\":" + i + "}"));
		}
		for (int from = 0; from < count; from += 1000) {
			this.harness.queue.enqueueAll(requests.subList(from, Math.min(count, from + 1000)));
		}
		this.db.execute("UPDATE jobs SET status = 'failed', error_code = ?, error_detail = 'payment API down', "
				+ "finished_at = run_at WHERE type = ? AND status = 'pending'", errorCode, type);
		this.harness.queue.resume(type);
	}

	@Test
	void aBulkRetryOfFiveThousandFailedJobsRetriesEachOnceWhileTheWorkerClaims() {
		failedJobs("pay", 5000, "DEPENDENCY:PAYMENT_API");
		long timeouts = enqueue(JobRequest.of("flaky", "{}").maxAttempts(1));
		awaitStatus(timeouts, JobStatus.FAILED);
		List<Long> flowing = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			flowing.add(enqueue(JobRequest.of("ok", "{}")));
		}
		long eventsBefore = this.db
			.count("SELECT count(*) FROM job_events WHERE job_id NOT IN " + "(SELECT id FROM jobs WHERE type = 'pay')");

		Cli.Run dryRun = cli("retry", "--status=failed", "--error-code=DEPENDENCY:PAYMENT_API", "--dry-run");
		assertThat(dryRun.exitCode()).as(dryRun.toString()).isZero();
		assertThat(dryRun.out()).contains("5,000 job(s) match");
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE event = 'RETRIED'")).isZero();

		Cli.Run retry = cli("retry", "--status=failed", "--error-code=DEPENDENCY:PAYMENT_API", "--json");

		assertThat(retry.exitCode()).as(retry.toString()).isZero();
		assertThat(retry.json().get("applied").asLong()).isEqualTo(5000);
		assertThat(retry.json().get("batches").asInt()).isEqualTo(10);
		await().atMost(Duration.ofSeconds(120))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> this.db
				.count("SELECT count(*) FROM jobs WHERE type = 'pay' AND status = 'succeeded'") == 5000);
		// Each job retried once, with its event, and run once.
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE event = 'RETRIED'")).isEqualTo(5000);
		assertThat(this.db.count("SELECT count(DISTINCT job_id) FROM job_events WHERE event = 'RETRIED'"))
			.isEqualTo(5000);
		assertThat(this.db
			.count("SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id " + "WHERE j.type = 'pay'"))
			.isEqualTo(5000);
		assertThat(this.payRuns).hasValue(5000);
		// Nothing else touched: the other failure and the jobs that ran meanwhile.
		assertThat(this.harness.queue.find(timeouts).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
		flowing.forEach((id) -> awaitStatus(id, JobStatus.SUCCEEDED));
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE event = 'RETRIED' AND job_id NOT IN "
				+ "(SELECT id FROM jobs WHERE type = 'pay')"))
			.isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE job_id = ?", timeouts)).isEqualTo(
				this.db.count("SELECT count(*) FROM job_events WHERE job_id = ? AND event <> 'RETRIED'", timeouts));
		assertThat(eventsBefore).isPositive();

		// A failed job is there (another error code) and 5,000 that were retried.
		Cli.Run nothing = refused(1, "retry", "--status=failed", "--error-code=DEPENDENCY:PAYMENT_API");
		assertThat(nothing.err().strip()).doesNotContain("\n")
			.contains("No job matches status=failed, errorCode=DEPENDENCY:PAYMENT_API", "nothing changed");
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE event = 'RETRIED'")).isEqualTo(5000);
	}

	@Test
	void bulkDeleteCancelAndSearchFromTheCommandLine() {
		failedJobs("pay", 30, "DEPENDENCY:PAYMENT_API");
		this.harness.queue.pause("ok");
		List<Long> held = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			held.add(enqueue(JobRequest.of("ok", "{\"customer\":\"alice-" + i + "\"}")));
		}

		Cli.Run search = cli("search", "alice-2", "--json");
		assertThat(search.exitCode()).as(search.toString()).isZero();
		assertThat(search.json().get("matches")).hasSize(1);
		assertThat(search.json().get("matches").get(0).get("job").get("id").asLong()).isEqualTo(held.get(2));
		assertThat(search.json().get("matches").get(0).get("matchedOn").asString()).isEqualTo("payload");
		Cli.Run byCode = cli("search", "DEPENDENCY:PAYMENT_API", "--limit=5");
		assertThat(byCode.out()).contains("error-code", "DEPENDENCY:PAYMENT_API", "Text searched in the");
		assertThat(cli("search", "no-such-text").exitCode()).isEqualTo(1);

		// Bad input is refused while the jobs it could reach are there: 4 pending of a
		// paused type, 30 failed.
		String failedPay = this.db.column("SELECT min(id) FROM jobs WHERE type = 'pay'").get(0).toString();
		Cli.Run notFinished = refused(2, "delete", "--status=pending");
		assertThat(notFinished.err()).contains("applies to succeeded, failed or cancelled jobs, not to pending");
		refused(2, "retry");
		refused(2, "cancel");
		refused(2, "delete");
		refused(2, "retry", failedPay, "--status=failed");
		refused(2, "retry", failedPay, "--dry-run");
		refused(2, "retry", "--status=failed", "--forget-steps");
		refused(2, "retry", "--status=sleeping");
		refused(2, "cancel", "--type=ok", "--status=sleeping");
		refused(2, "retry", "--status=failed", "--batch-size=0");
		assertThat(refused(2, "cancel", "--enqueued-after=yesterday").err()).contains("neither an ISO-8601 instant");
		refused(2, "delete", "--type=pay", "--finished-before=later");
		refused(2, "cancel", "--type=" + "t".repeat(201));
		refused(2, "cancel", "--key=" + "k".repeat(201));
		refused(1, "delete", Long.toString(held.get(1)));
		refused(1, "retry", Long.toString(held.get(1)));
		refused(1, "cancel", "--type=ok", "--error-code=NOBODY");
		refused(1, "delete", "--type=pay", "--status=cancelled");

		Cli.Run cancel = cli("cancel", "--type=ok");
		assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
		assertThat(cancel.out()).contains("4 job(s) cancelled of 4 matching type=ok");
		held.forEach(
				(id) -> assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED));

		Cli.Run delete = cli("delete", "--type=pay", "--status=failed", "--batch-size=7");
		assertThat(delete.exitCode()).as(delete.toString()).isZero();
		assertThat(delete.out()).contains("30 job(s) deleted of 30 matching type=pay, status=failed, in 5 batch(es)");
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE type = 'pay'")).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE type = 'ok'")).isEqualTo(4);

		Cli.Run one = cli("delete", Long.toString(held.get(0)));
		assertThat(one.exitCode()).as(one.toString()).isZero();
		assertThat(this.harness.queue.find(held.get(0))).isEmpty();
	}

	@Test
	void pauseCancelAndResumeOneTypeWhileTheWorkerPolls() {
		Cli.Run pause = cli("pause", "ok");
		assertThat(pause.exitCode()).as(pause.toString()).isZero();
		long cancelled = enqueue(JobRequest.of("ok", "{}"));
		long held = enqueue(JobRequest.of("ok", "{}"));
		refused(1, "pause", "ok");
		Cli.Run status = cli("status", "--json");
		assertThat(status.json().get("paused").get(0).get("type").asString()).isEqualTo("ok");
		assertThat(this.harness.queue.find(held).orElseThrow().status()).isEqualTo(JobStatus.PENDING);

		Cli.Run cancel = cli("cancel", Long.toString(cancelled), "--json");
		assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
		assertThat(cancel.json().get("status").asString()).isEqualTo("cancelled");
		refused(1, "cancel", Long.toString(cancelled));

		Cli.Run resume = cli("resume", "ok");
		assertThat(resume.exitCode()).as(resume.toString()).isZero();
		awaitStatus(held, JobStatus.SUCCEEDED);
		assertThat(this.harness.queue.find(cancelled).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		refused(1, "resume", "ok");
	}

	@Test
	void purgeDeletesFinishedJobsOfOneStatusOnly() {
		long ok = enqueue(JobRequest.of("ok", "{}"));
		long failed = enqueue(JobRequest.of("flaky", "{}").maxAttempts(1));
		awaitStatus(ok, JobStatus.SUCCEEDED);
		awaitStatus(failed, JobStatus.FAILED);

		refused(1, "purge", "--status=succeeded", "--older-than=7d");
		assertThat(this.harness.queue.find(ok)).isPresent();
		Cli.Run purge = cli("purge", "--status=succeeded", "--older-than=0s", "--json");
		assertThat(purge.exitCode()).as(purge.toString()).isZero();
		assertThat(purge.json().get("deleted").get("succeeded").asLong()).isEqualTo(1);
		assertThat(this.harness.queue.find(ok)).isEmpty();
		assertThat(this.harness.queue.find(failed)).isPresent();
		// Pending jobs are there that the purge would delete, were they finished.
		enqueue(JobRequest.of("ok", "{}").delay(Duration.ofHours(1)));
		Cli.Run pending = refused(2, "purge", "--status=pending", "--older-than=1d");
		assertThat(pending.err()).isNotEmpty();
		refused(2, "purge", "--status=pending", "--older-than=0s");
		refused(2, "purge", "--status=failed", "--older-than=soon");
	}

	@Test
	void doctorFindsAStuckJobAndATypeWithDueJobsAndNoLiveWorker() throws InterruptedException {
		Cli.Run healthy = cli("doctor");
		assertThat(healthy.exitCode()).as(healthy.toString()).isZero();
		assertThat(healthy.out()).contains("No problem found.");

		long stuck = enqueue(JobRequest.of("block", "{}"));
		await().atMost(Duration.ofSeconds(30)).until(() -> this.blocked.contains(stuck));
		long orphan = enqueue(JobRequest.of("resize-image", "{}"));
		// The worker renews heartbeats every third of its 30 s lease: none comes in 2 s.
		Thread.sleep(2000);
		Cli.Run doctor = cli("doctor", "--stuck-after=1s", "--json");
		assertThat(doctor.exitCode()).as(doctor.toString()).isEqualTo(1);
		JsonNode findings = doctor.json().get("findings");
		assertThat(finding(findings, "stuck").get("problem").asBoolean()).isTrue();
		assertThat(finding(findings, "stuck").get("detail").asString()).contains("#" + stuck);
		assertThat(finding(findings, "unhandled").get("problem").asBoolean()).isTrue();
		assertThat(finding(findings, "unhandled").get("detail").asString()).contains("resize-image (1)");
		assertThat(this.harness.queue.find(orphan).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		Cli.Run human = cli("doctor", "--stuck-after=1s");
		assertThat(human.out()).contains("PROBLEM  stuck", "PROBLEM  unhandled", "2 problem(s) found.");
	}

	@Test
	void aNewerSchemaIsRefusedAndLeftAsItIs() {
		long done = enqueue(JobRequest.of("ok", "{}"));
		awaitStatus(done, JobStatus.SUCCEEDED);
		enqueue(JobRequest.of("ok", "{}").delay(Duration.ofHours(1)));
		writeNewerSchemaVersion();
		for (String command : List.of("status", "doctor", "migrate")) {
			Cli.Run run = refused(3, command);
			assertThat(run.err().strip()).contains("schema version 999", "newer than this jobqueue-cli")
				.doesNotContain("\n");
		}
		assertThat(this.db.count("SELECT count(*) FROM jobqueue_schema_history WHERE version = '999'")).isEqualTo(1);
	}

	@Test
	void aKeyIsShownAndFiltersListsAndBulkActions() {
		this.harness.queue.pause("ok");
		long first = enqueue(JobRequest.of("ok", "{}").key("acme"));
		long other = enqueue(JobRequest.of("ok", "{}").key("globex"));
		long second = enqueue(JobRequest.of("ok", "{}").key("acme"));

		Cli.Run listed = cli("jobs", "--key=acme", "--json");
		assertThat(listed.exitCode()).as(listed.toString()).isZero();
		assertThat(listed.json().get("jobs")).extracting((job) -> job.get("id").asLong())
			.containsExactly(second, first);
		assertThat(listed.json().get("jobs").get(0).get("key").asString()).isEqualTo("acme");
		Cli.Run table = cli("jobs", "--type=ok");
		assertThat(table.out()).contains("KEY").contains("globex").contains("acme");
		assertThat(cli("jobs", "--key=initech").exitCode()).isEqualTo(1);
		assertThat(cli("show", Long.toString(first)).out()).contains("  key acme");
		assertThat(cli("show", Long.toString(first), "--json").json().get("job").get("key").asString())
			.isEqualTo("acme");
		Cli.Run search = cli("search", "globex", "--json");
		assertThat(search.json().get("matches").get(0).get("matchedOn").asString()).isEqualTo("key");

		refused(2, "cancel", "--key=");
		Cli.Run cancel = cli("cancel", "--key=acme");
		assertThat(cancel.exitCode()).as(cancel.toString()).isZero();
		assertThat(cancel.out()).contains("2 job(s) cancelled of 2 matching key=acme");
		assertThat(this.harness.queue.find(first).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.harness.queue.find(second).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.harness.queue.find(other).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		Cli.Run longKey = refused(2, "jobs", "--key=" + "k".repeat(201));
		assertThat(longKey.err()).contains("--key: a key has 1 to 200 characters");
	}

	@Test
	void badInputGetsOneLineAndAnExitCode() {
		// Jobs each refused command could reach: pending (not due), failed, succeeded.
		enqueue(JobRequest.of("ok", "{}").delay(Duration.ofHours(1)));
		long failed = enqueue(JobRequest.of("flaky", "{}").maxAttempts(1));
		long done = enqueue(JobRequest.of("ok", "{}"));
		awaitStatus(failed, JobStatus.FAILED);
		awaitStatus(done, JobStatus.SUCCEEDED);

		Cli.Run missing = refused(1, "show", "987654321");
		assertThat(missing.err()).contains("No job 987654321");
		refused(1, "retry", "987654321");
		refused(1, "cancel", "987654321");
		refused(1, "delete", "987654321");
		Cli.Run longType = refused(2, "pause", "t".repeat(201));
		assertThat(longType.err()).contains("at most 200 characters");
		assertThat(this.harness.queue.pausedTypes()).isEmpty();
		refused(2, "resume", "t".repeat(201));
		refused(2, "jobs", "--limit=500");
		refused(2, "jobs", "--status=sleeping");
		refused(2, "status", "--no-such-option");
		refused(2, "retry", "--status=sleeping");
		refused(2, "retry", "--status=failed", "--no-such-option");
		refused(2, "cancel", "--status=pending", "--enqueued-before=tomorrow");
		refused(2, "delete", "--status=failed", "--batch-size=-1");
		refused(2, "retry", Long.toString(failed), "--type=flaky");
		assertThat(Cli.run("status").exitCode()).as("no database named").isEqualTo(2);
		assertThat(Cli.run().exitCode()).isEqualTo(2);
	}

	@Test
	void theBuiltJarStartsOnThisStoreAndAnswersAsAScriptReadsIt() {
		long done = enqueue(JobRequest.of("ok", "{}"));
		awaitStatus(done, JobStatus.SUCCEEDED);

		Cli.Run status = jar("status", "--json");
		assertThat(status.exitCode()).as(status.toString()).isZero();
		assertThat(status.json().get("counts").get("succeeded").asLong()).isEqualTo(1);
		Cli.Run none = jar("jobs", "--type=nobody");
		assertThat(none.exitCode()).as(none.toString()).isEqualTo(1);
		Cli.Run usage = jar("retry", "--status=sleeping");
		assertThat(usage.exitCode()).as(usage.toString()).isEqualTo(2);
		assertThat(usage.err().strip()).isNotEmpty().doesNotContain("\n");
		assertThat(usage.out()).isEmpty();

		writeNewerSchemaVersion();
		Cli.Run newer = jar("status");
		assertThat(newer.exitCode()).as(newer.toString()).isEqualTo(3);
		assertThat(newer.err().strip()).contains("schema version 999", "newer than this jobqueue-cli")
			.doesNotContain("\n");
		assertThat(this.harness.queue.find(done).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
	}

	static JsonNode finding(JsonNode findings, String check) {
		for (JsonNode finding : findings) {
			if (finding.get("check").asString().equals(check)) {
				return finding;
			}
		}
		throw new AssertionError("No finding " + check + " in " + findings);
	}

}
