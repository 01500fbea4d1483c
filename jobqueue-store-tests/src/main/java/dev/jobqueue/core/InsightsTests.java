package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.QueueInsights.JobSummary;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.core.store.QueueSnapshot;
import dev.jobqueue.core.store.QueueSnapshot.ErrorCount;
import dev.jobqueue.core.store.QueueSnapshot.WorkerState;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.core.store.WorkerInfo;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The snapshot the endpoint, health and meters read ({@link QueueInsights}), on every
 * store: counts by status and type, the oldest claimable job, the oldest running jobs,
 * stuck jobs, the retry distribution, the top error codes, the workers and the types
 * nobody handles. Jobs are put in place through the store's own statements at instants
 * the test chooses. The lists and one-job views are {@link InsightsJobViewTests}.
 */
public abstract class InsightsTests extends StoreTests {

	/** Stuck after 15 minutes, 2 error codes by name, workers dead after 3 minutes. */
	private static final SnapshotSettings SETTINGS = new SnapshotSettings(Duration.ofMinutes(15), 2,
			Duration.ofMinutes(3), 10);

	private QueueSnapshot snapshot() {
		return this.db.insights().snapshot(now(), SETTINGS);
	}

	private Instant now() {
		return this.clock.instant();
	}

	private long enqueue(String type) {
		return this.harness.queue.enqueue(type, "{}");
	}

	/** Claims the due job of {@code type} first in claim order, held for an hour. */
	private ClaimedJob claim(String type, String workerId) {
		List<ClaimedJob> claimed = this.db.store()
			.claim(new ClaimRequest(workerId, 1, Set.of(type), Map.of(), Set.of(), now().plus(Duration.ofHours(1))),
					now());
		assertThat(claimed).as("a due '%s' job to claim", type).hasSize(1);
		return claimed.get(0);
	}

	private void complete(Completion completion) {
		assertThat(this.db.store().complete(List.of(completion), "w1", now())).containsExactly(true);
	}

	/** A job that ran once and failed for good with {@code errorCode}. */
	private long failed(String type, String errorCode) {
		long id = enqueue(type);
		complete(Completion.failed(claim(type, "w1"), errorCode, "it broke"));
		return id;
	}

	/** A job that failed with {@code errorCode} and waits an hour to run again. */
	private long retrying(String type, String errorCode) {
		long id = enqueue(type);
		complete(Completion.retry(claim(type, "w1"), errorCode, "it broke", now().plus(Duration.ofHours(1))));
		return id;
	}

	private void registerWorker(String workerId, String... types) {
		this.db.store().registerWorker(new WorkerInfo(workerId, "host-1", 42, Set.of(types), 4), now());
	}

	@Test
	void countsAreByTypeAndStatusAndEveryStatusIsInTheTotals() {
		long[] mail = new long[6];
		for (int i = 0; i < mail.length; i++) {
			mail[i] = enqueue("mail");
		}
		complete(Completion.succeeded(claim("mail", "w1"), null));
		complete(Completion.failed(claim("mail", "w1"), "SMTP:REFUSED", "no"));
		claim("mail", "w1");
		this.harness.queue.cancel(mail[3]);
		enqueue("thumbnail");
		this.harness.queue.enqueue(JobRequest.of("thumbnail", 2).after(mail[4]));

		QueueSnapshot snapshot = snapshot();

		assertThat(snapshot.at()).isEqualTo(now());
		assertThat(snapshot.counts()).isEqualTo(Map.of(
				"mail", Map.of(JobStatus.PENDING, 2L, JobStatus.RUNNING, 1L, JobStatus.SUCCEEDED, 1L, JobStatus.FAILED,
						1L, JobStatus.CANCELLED, 1L),
				"thumbnail", Map.of(JobStatus.PENDING, 1L, JobStatus.WAITING, 1L)));
		assertThat(snapshot.countsByStatus()).isEqualTo(Map.of(JobStatus.PENDING, 3L, JobStatus.RUNNING, 1L,
				JobStatus.SUCCEEDED, 1L, JobStatus.FAILED, 1L, JobStatus.CANCELLED, 1L, JobStatus.WAITING, 1L));
		assertThat(snapshot.storage().location()).isNotBlank();
		assertThat(snapshot.storage().databaseBytes()).isPositive();
	}

	@Test
	void theOldestClaimableJobIsDueNowOfATypeThatIsNotPausedAndThatALiveWorkerHandles() {
		Instant start = now();
		this.harness.queue.enqueue(JobRequest.of("mail", 1).runAt(start.plus(Duration.ofHours(1))));
		long backingOff = enqueue("mail");
		complete(Completion.retry(claim("mail", "w1"), "SMTP:BUSY", "try later", start.plus(Duration.ofMinutes(10))));
		long paused = enqueue("report");
		this.harness.queue.pause("report");
		enqueue("fax");
		this.clock.advance(Duration.ofMinutes(1));
		long due = enqueue("mail");
		this.clock.advance(Duration.ofMinutes(1));
		registerWorker("w1", "mail", "report");

		QueueSnapshot snapshot = snapshot();

		assertThat(snapshot.claimable()).isOne();
		assertThat(snapshot.oldestClaimable().id()).isEqualTo(due);
		assertThat(snapshot.oldestClaimableAge()).isEqualTo(Duration.ofMinutes(1));
		assertThat(snapshot.unhandled()).isEqualTo(Map.of("fax", 1L));
		assertThat(this.db.insights().oldestClaimable(now(), now().minus(Duration.ofMinutes(3))))
			.hasValueSatisfying((oldest) -> assertThat(oldest.id()).isEqualTo(due));

		// Once its backoff is over, the retried job is late, from the end of its backoff.
		this.clock.setInstant(start.plus(Duration.ofMinutes(11)));
		registerWorker("w1", "mail", "report");
		assertThat(snapshot().claimable()).isEqualTo(2);
		assertThat(claim("mail", "w1").id()).isEqualTo(due);
		snapshot = snapshot();
		assertThat(snapshot.claimable()).isOne();
		assertThat(snapshot.oldestClaimable().id()).isEqualTo(backingOff);
		assertThat(snapshot.oldestClaimableAge()).isEqualTo(Duration.ofMinutes(1));

		this.harness.queue.resume("report");
		assertThat(snapshot().oldestClaimable().id()).isEqualTo(paused);
		assertThat(snapshot().claimable()).isEqualTo(2);

		// Nobody is alive to claim them: held, not late.
		this.clock.advance(Duration.ofMinutes(4));
		assertThat(snapshot().claimable()).isZero();
		assertThat(snapshot().oldestClaimable()).isNull();
		assertThat(snapshot().oldestClaimableAge()).isZero();
		assertThat(this.db.insights().oldestClaimable(now(), now().minus(Duration.ofMinutes(3)))).isEmpty();
		assertThat(snapshot().unhandled()).isEqualTo(Map.of("fax", 1L, "mail", 2L, "report", 1L));
	}

	@Test
	void theOldestRunningJobsComeWithTheirWorkerAndLastHeartbeat() {
		Instant start = now();
		long first = enqueue("mail");
		long second = enqueue("mail");
		enqueue("mail");
		ClaimedJob firstRun = claim("mail", "w1");
		this.clock.advance(Duration.ofMinutes(1));
		claim("mail", "w2");
		this.clock.advance(Duration.ofMinutes(1));
		claim("mail", "w1");
		this.db.store()
			.heartbeat("w1", new RunningJobRef(firstRun.id(), firstRun.run()), now(), now().plus(Duration.ofHours(1)));

		QueueSnapshot snapshot = this.db.insights()
			.snapshot(now(), new SnapshotSettings(Duration.ofMinutes(15), 2, Duration.ofMinutes(3), 2));

		assertThat(snapshot.oldestRunning()).extracting(JobSummary::id).containsExactly(first, second);
		assertThat(snapshot.oldestRunning()).extracting(JobSummary::workerId).containsExactly("w1", "w2");
		assertThat(snapshot.oldestRunning()).extracting(JobSummary::startedAt)
			.containsExactly(start, start.plus(Duration.ofMinutes(1)));
		assertThat(snapshot.oldestRunning()).extracting(JobSummary::heartbeatAt)
			.containsExactly(now(), start.plus(Duration.ofMinutes(1)));
		assertThat(snapshot.oldestRunning()).extracting(JobSummary::status).containsOnly(JobStatus.RUNNING);
		assertThat(snapshot.oldestRunningAge()).isEqualTo(Duration.ofMinutes(2));
		assertThat(snapshot.countsByStatus()).containsEntry(JobStatus.RUNNING, 3L);
	}

	@Test
	void stuckJobsAreRunningJobsWithoutARecentHeartbeatNotThoseWaitingForASlot() {
		for (int i = 0; i < 5; i++) {
			enqueue("mail");
		}
		ClaimedJob silent = claim("mail", "w1");
		ClaimedJob beating = claim("mail", "w1");
		ClaimedJob waitingForASlot = claim("mail", "w1");
		this.clock.advance(Duration.ofMinutes(1));
		ClaimedJob alsoSilent = claim("mail", "w1");
		this.clock.advance(Duration.ofMinutes(9));
		ClaimedJob recent = claim("mail", "w2");
		this.clock.advance(Duration.ofMinutes(10));
		Instant leaseUntil = now().plus(Duration.ofHours(1));
		this.db.store().heartbeat("w1", new RunningJobRef(beating.id(), beating.run()), now(), leaseUntil);
		// A lease renewal proves life only for jobs that wait for a slot (no handler
		// yet); a started handler's heartbeat is its own.
		this.db.store()
			.renewLeases("w1",
					List.of(new RunningJobRef(silent.id(), silent.run()),
							new RunningJobRef(waitingForASlot.id(), waitingForASlot.run(), true),
							new RunningJobRef(alsoSilent.id(), alsoSilent.run())),
					now(), leaseUntil);

		QueueSnapshot snapshot = snapshot();

		assertThat(snapshot.stuck().count()).isEqualTo(2);
		assertThat(snapshot.stuck().oldest()).extracting(JobSummary::id).containsExactly(silent.id(), alsoSilent.id());
		QueueInsights.StuckJobs limited = this.db.insights().stuck(now().minus(Duration.ofMinutes(15)), 1);
		assertThat(limited.count()).as("the count is exact, the list is limited").isEqualTo(2);
		assertThat(limited.oldest()).extracting(JobSummary::id).containsExactly(silent.id());
		assertThat(this.db.insights().stuck(now().minus(Duration.ofMinutes(30)), 10).count()).isZero();
		assertThat(this.db.insights().stuck(now().minus(Duration.ofMinutes(5)), 10).oldest()).extracting(JobSummary::id)
			.containsExactly(silent.id(), alsoSilent.id(), recent.id());
	}

	@Test
	void theRetryDistributionCountsTheAttemptsOfUnfinishedAndFailedJobs() {
		// Each job is driven while it is the only due one, so each claim takes it.
		long failedForGood = this.harness.queue.enqueue(JobRequest.of("mail", 1).maxAttempts(3));
		complete(Completion.retry(claim("mail", "w1"), "SMTP:BUSY", "later", now()));
		complete(Completion.retry(claim("mail", "w1"), "SMTP:BUSY", "later", now()));
		complete(Completion.failed(claim("mail", "w1"), "SMTP:REFUSED", "no"));
		long succeeded = enqueue("mail");
		complete(Completion.retry(claim("mail", "w1"), "SMTP:BUSY", "later", now()));
		complete(Completion.succeeded(claim("mail", "w1"), null));
		long running = enqueue("mail");
		complete(Completion.retry(claim("mail", "w1"), "SMTP:BUSY", "later", now()));
		claim("mail", "w1");
		retrying("mail", "SMTP:BUSY");
		enqueue("mail");
		enqueue("report");

		QueueSnapshot snapshot = snapshot();

		assertThat(snapshot.retries()).isEqualTo(Map.of(0, 2L, 1, 1L, 2, 1L, 3, 1L));
		assertThat(snapshot.retriesByType())
			.isEqualTo(Map.of("mail", Map.of(0, 1L, 1, 1L, 2, 1L, 3, 1L), "report", Map.of(0, 1L)));
		assertThat(this.harness.queue.find(failedForGood).orElseThrow().attempts()).isEqualTo(3);
		assertThat(this.harness.queue.find(succeeded).orElseThrow().attempts()).isEqualTo(2);
		assertThat(this.harness.queue.find(running).orElseThrow().attempts()).isEqualTo(2);
	}

	@Test
	void theTopErrorCodesAreTheMostFrequentOfFailedAndRetryingJobsAndTheRestIsSummed() {
		failed("mail", "DEPENDENCY:GEOCODER");
		failed("report", "DEPENDENCY:GEOCODER");
		retrying("mail", "DEPENDENCY:GEOCODER");
		failed("mail", "TIMEOUT:HANDLER");
		failed("mail", "TIMEOUT:HANDLER");
		failed("mail", "BAD:REQUEST");
		retrying("report", "BAD:REQUEST");
		failed("mail", "INVALID_INPUT:PAYLOAD");
		long recovered = enqueue("mail");
		complete(Completion.retry(claim("mail", "w1"), "INTERNAL:IllegalStateException", "boom", now()));
		complete(Completion.succeeded(claim("mail", "w1"), null));
		assertThat(this.harness.queue.find(recovered).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);

		QueueSnapshot.ErrorSummary errors = snapshot().errors();

		// Equal counts are listed by code.
		assertThat(errors.top()).containsExactly(
				new ErrorCount("DEPENDENCY:GEOCODER", 3, 2, 1, Map.of("mail", 2L, "report", 1L)),
				new ErrorCount("BAD:REQUEST", 2, 1, 1, Map.of("mail", 1L, "report", 1L)));
		assertThat(errors.other()).isEqualTo(3);
		assertThat(errors.distinctCodes()).isEqualTo(4);
		QueueSnapshot.ErrorSummary all = this.db.insights()
			.snapshot(now(), new SnapshotSettings(Duration.ofMinutes(15), 10, Duration.ofMinutes(3), 10))
			.errors();
		assertThat(all.top()).extracting(ErrorCount::code)
			.containsExactly("DEPENDENCY:GEOCODER", "BAD:REQUEST", "TIMEOUT:HANDLER", "INVALID_INPUT:PAYLOAD");
		assertThat(all.other()).isZero();
	}

	@Test
	void workersAreListedWithTheirTypesAndWhetherTheyAreAliveAndUnhandledTypesAreReported() {
		Instant start = now();
		registerWorker("w-old", "mail");
		this.clock.advance(Duration.ofMinutes(1));
		registerWorker("w-new", "report", "thumbnail");
		this.clock.advance(Duration.ofMinutes(3));
		registerWorker("w-new", "report", "thumbnail");
		enqueue("mail");
		enqueue("mail");
		enqueue("report");
		enqueue("fax");
		complete(Completion.succeeded(claim("fax", "w1"), null));

		QueueSnapshot snapshot = snapshot();

		assertThat(snapshot.workers()).containsExactly(
				new WorkerState("w-old", "host-1", 42, Set.of("mail"), 4, start, start, false),
				new WorkerState("w-new", "host-1", 42, Set.of("report", "thumbnail"), 4,
						start.plus(Duration.ofMinutes(1)), now(), true));
		assertThat(snapshot.unhandled()).as("pending jobs of types no live worker handles")
			.isEqualTo(Map.of("mail", 2L));
		this.db.store().unregisterWorker("w-old");
		assertThat(snapshot().workers()).extracting(WorkerState::workerId).containsExactly("w-new");
	}

	@Test
	void theAvailabilityCheckPassesOnAUsableDatabaseAndWritesNothing() {
		this.db.insights().checkAvailable();

		assertThat(this.db.count("SELECT count(*) FROM job_workers")).isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_housekeeping")).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
	}

}
