package dev.jobqueue.core;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Test;

import dev.jobqueue.BulkAction;
import dev.jobqueue.JobFilter;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.CompleteAndClaim;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Flow control in the claim (issue 25): limits per key, order per key, rate limits per
 * type and per key, and rounds across keys, asserted on what the store hands out as the
 * test clock moves, and checked across two processes' stores on one database.
 */
public abstract class FlowControlTests extends KeyedJobsTests {

	/** The lease of the test's claims. */
	private static final Duration LEASE = Duration.ofSeconds(30);

	/** A claim of up to {@code limit} jobs of {@link #TYPE} under {@code flow}. */
	private ClaimRequest request(int limit, FlowControl flow) {
		Map<String, FlowControl> flows = flow.limits() ? Map.of(TYPE, flow) : Map.of();
		Set<String> unlimited = flow.limits() ? Set.of() : Set.of(TYPE);
		Map<String, Integer> limited = flow.limits() ? Map.of(TYPE, limit) : Map.of();
		return new ClaimRequest("w1", limit, unlimited, limited, Set.of(), this.clock.instant().plus(LEASE), Map.of(),
				limit, flows);
	}

	/**
	 * A claim whose handlers all begin at once, as a worker's do: each start recorded in
	 * the rate log at the claim's time.
	 */
	private List<ClaimedJob> claimAndStart(int limit, FlowControl flow) {
		return claimAndStart(this.db.store(), limit, flow);
	}

	private List<ClaimedJob> claimAndStart(JobStore store, int limit, FlowControl flow) {
		Instant now = this.clock.instant();
		List<ClaimedJob> jobs = store.claim(request(limit, flow), now);
		startHandlers(store, jobs, now, now);
		return jobs;
	}

	/** Records that the handlers of jobs claimed at {@code claimedAt} begin now. */
	private void startHandlers(JobStore store, List<ClaimedJob> jobs, Instant claimedAt, Instant now) {
		jobs.forEach(
				(job) -> store.recordHandlerStart(job, claimedAt, claimedAt.plus(LEASE), InstantSource.fixed(now)));
	}

	private List<ClaimedJob> claim(int limit, FlowControl flow) {
		return claim(this.db.store(), limit, flow);
	}

	private List<ClaimedJob> claim(JobStore store, int limit, FlowControl flow) {
		return store.claim(request(limit, flow), this.clock.instant());
	}

	private static List<String> payloads(List<ClaimedJob> jobs) {
		return jobs.stream().map((job) -> job.payload().replace("\"", "")).toList();
	}

	private void succeed(ClaimedJob job) {
		this.db.store().complete(List.of(Completion.succeeded(job, null)), "w1", this.clock.instant());
	}

	private static FlowControl keyConcurrency(int limit) {
		return new FlowControl(null, null, limit, false, true);
	}

	private static FlowControl ordered(boolean blockOnFailure) {
		return new FlowControl(null, null, 0, true, blockOnFailure);
	}

	private static FlowControl rate(String rate) {
		return new FlowControl(RateLimit.parse(rate), null, 0, false, true);
	}

	private static FlowControl keyRate(String rate) {
		return new FlowControl(null, RateLimit.parse(rate), 0, false, true);
	}

	@Test
	void aKeyRunsNoMoreThanItsConcurrencyWhileOtherKeysAndJobsWithoutAKeyProceed() {
		enqueueMany("a", "A", 5);
		enqueueMany("b", "B", 3);
		enqueueMany("none", null, 2);
		FlowControl flow = keyConcurrency(2);

		List<ClaimedJob> first = claim(10, flow);
		assertThat(payloads(first)).containsExactlyInAnyOrder("a1", "a2", "b1", "b2", "none1", "none2");
		assertThat(first).filteredOn((job) -> "A".equals(job.key())).hasSize(2);
		assertThat(claim(10, flow)).isEmpty();

		succeed(first.stream().filter((job) -> "A".equals(job.key())).findFirst().orElseThrow());
		assertThat(payloads(claim(10, flow))).containsExactly("a3");
		assertThat(claim(10, flow)).isEmpty();
		assertThat(this.db.count("SELECT max(c) FROM (SELECT count(*) AS c FROM jobs WHERE status = 'running' "
				+ "GROUP BY job_key) counts"))
			.isEqualTo(2);
	}

	@Test
	void aKeyRunningInOneProcessIsNotClaimedAgainByAnother() {
		enqueueMany("a", "A", 4);
		enqueueMany("b", "B", 4);
		FlowControl flow = keyConcurrency(1);
		try (StoreFixture other = this.db.anotherProcess()) {
			List<ClaimedJob> here = claim(1, flow);
			List<ClaimedJob> there = claim(other.store(), 4, flow);
			assertThat(here).hasSize(1);
			assertThat(there).hasSize(1);
			assertThat(here.get(0).key()).isNotEqualTo(there.get(0).key());
			assertThat(claim(other.store(), 4, flow)).isEmpty();
			assertThat(claim(4, flow)).isEmpty();
		}
	}

	@Test
	void orderedKeysStartTheirJobsOneAfterAnotherInEnqueueOrderWhateverTheirPriority() {
		enqueue("a1", "A");
		this.harness.queue.enqueue(JobRequest.of(TYPE, "a2").key("A"));
		this.harness.queue.enqueue(JobRequest.of(TYPE, "a3").key("A").priority(10));
		enqueue("b1", "B");
		FlowControl flow = ordered(true);

		List<String> order = new ArrayList<>();
		for (int round = 0; round < 10; round++) {
			List<ClaimedJob> claimed = claim(10, flow);
			if (claimed.isEmpty()) {
				break;
			}
			assertThat(claimed.stream().map(ClaimedJob::key).distinct()).hasSameSizeAs(claimed);
			assertThat(claim(10, flow)).as("nothing more while each key runs one").isEmpty();
			claimed.forEach(this::succeed);
			order.addAll(payloads(claimed).stream().filter((payload) -> payload.startsWith("a")).toList());
		}
		assertThat(order).containsExactly("a1", "a2", "a3");
	}

	@Test
	void aJobThatFailedForGoodHoldsItsOrderedKeyUntilItIsRetriedOrDeleted() {
		long a1 = enqueue("a1", "A");
		enqueue("a2", "A");
		enqueue("a3", "A");
		FlowControl flow = ordered(true);

		ClaimedJob first = claim(10, flow).get(0);
		this.db.store().complete(List.of(Completion.failed(first, "TEST:BROKEN", "no")), "w1", this.clock.instant());
		assertThat(claim(10, flow)).isEmpty();

		assertThat(this.db.admin().retry(a1, this.clock.instant())).isTrue();
		ClaimedJob retried = claim(10, flow).get(0);
		assertThat(retried.id()).isEqualTo(a1);
		this.db.store().complete(List.of(Completion.failed(retried, "TEST:BROKEN", "no")), "w1", this.clock.instant());
		assertThat(claim(10, flow)).isEmpty();

		assertThat(this.db.admin().applyBulk(BulkAction.DELETE, JobFilter.any(), List.of(a1), this.clock.instant()))
			.containsExactly(a1);
		assertThat(payloads(claim(10, flow))).containsExactly("a2");
	}

	@Test
	void cancellingAnOrderedKeysHeldJobLetsTheNextOneGo() {
		long a1 = enqueue("a1", "A");
		enqueue("a2", "A");
		FlowControl flow = ordered(true);

		ClaimedJob first = claim(10, flow).get(0);
		this.db.store()
			.complete(List.of(Completion.retry(first, "TEST:FLAKY", "again", this.clock.instant().plusSeconds(60))),
					"w1", this.clock.instant());
		assertThat(claim(10, flow)).isEmpty();
		assertThat(this.db.admin().cancel(a1, this.clock.instant())).isTrue();
		assertThat(payloads(claim(10, flow))).containsExactly("a2");
	}

	@Test
	void withoutBlockOnFailureAFailedJobLetsTheNextOneOfItsKeyGo() {
		enqueue("a1", "A");
		enqueue("a2", "A");
		FlowControl flow = ordered(false);

		ClaimedJob first = claim(10, flow).get(0);
		this.db.store().complete(List.of(Completion.failed(first, "TEST:BROKEN", "no")), "w1", this.clock.instant());
		assertThat(payloads(claim(10, flow))).containsExactly("a2");
	}

	@Test
	void anOrderedKeysJobIsNotTakenWhenAnEarlierJobOfItsKeyBecamePendingAfterTheClaimReadTheKey() {
		long blocker = this.harness.queue.enqueue(JobRequest.of("other", "blocker"));
		long a1 = this.harness.queue.enqueue(JobRequest.of(TYPE, "a1").key("A").after(blocker));
		enqueue("a2", "A");
		FlowControl flow = ordered(true);
		// a1 waits for the blocker, so the claim reads a2 as A's first pending job; then
		// a1's wait ends (as when the blocker succeeds in another process) before the
		// take.
		this.db.beforeNextTake((connection) -> {
			try (PreparedStatement update = connection
				.prepareStatement("UPDATE jobs SET status = 'pending', waiting_for = 0 WHERE id = ?")) {
				update.setLong(1, a1);
				assertThat(update.executeUpdate()).isOne();
			}
		});

		assertThat(claim(10, flow)).as("a2 is no longer the first pending job of A").isEmpty();
		assertThat(payloads(claim(10, flow))).containsExactly("a1");
		assertThat(claim(10, flow)).as("a2 waits for a1").isEmpty();
	}

	@Test
	void aRetryBackoffHoldsItsOrderedKeyUntilTheRetryIsDue() {
		enqueue("a1", "A");
		enqueue("a2", "A");
		enqueue("b1", "B");
		FlowControl flow = ordered(true);

		List<ClaimedJob> first = claim(10, flow);
		assertThat(payloads(first)).containsExactlyInAnyOrder("a1", "b1");
		ClaimedJob a1 = first.stream().filter((job) -> "A".equals(job.key())).findFirst().orElseThrow();
		this.db.store()
			.complete(List.of(Completion.retry(a1, "TEST:FLAKY", "again", this.clock.instant().plusSeconds(60))), "w1",
					this.clock.instant());
		assertThat(claim(10, flow)).as("a2 is due, but a1 comes first").isEmpty();

		this.clock.advance(Duration.ofSeconds(60));
		ClaimedJob again = claim(10, flow).get(0);
		assertThat(again.id()).isEqualTo(a1.id());
		assertThat(again.attempt()).isEqualTo(2);
	}

	@Test
	void recoveringTheLeaseOfACrashedWorkersJobReleasesItsKey() {
		enqueue("a1", "A");
		enqueue("a2", "A");
		FlowControl flow = keyConcurrency(1);

		ClaimedJob lost = claim(1, flow).get(0);
		assertThat(claim(10, flow)).isEmpty();

		this.clock.advance(Duration.ofSeconds(31));
		assertThat(this.db.store().recoverExpiredLeases(this.clock.instant(), 10)).isEqualTo(1);
		List<ClaimedJob> after = claim(10, flow);
		assertThat(after).extracting(ClaimedJob::id).containsExactly(lost.id());
	}

	@Test
	void aTypesRateLimitHoldsInEverySlidingWindowAndAThrottledJobUsesNoAttempt() {
		enqueueMany("job", null, 30);
		FlowControl flow = rate("3/1s");
		Instant start = this.clock.instant();
		List<Instant> starts = new ArrayList<>();
		// Small steps that do not divide the window: claims land all over it.
		for (int step = 0; step < 60; step++) {
			for (ClaimedJob job : claimAndStart(10, flow)) {
				starts.add(this.clock.instant());
				succeed(job);
			}
			this.clock.advance(Duration.ofMillis(170));
		}
		assertThat(starts).hasSizeGreaterThanOrEqualTo(9 * 3);
		for (Instant from = start; !from.isAfter(this.clock.instant()); from = from.plusMillis(10)) {
			Instant windowStart = from;
			long inWindow = starts.stream()
				.filter((at) -> !at.isBefore(windowStart) && at.isBefore(windowStart.plusSeconds(1)))
				.count();
			assertThat(inWindow).as("starts in the second from " + windowStart).isLessThanOrEqualTo(3);
		}
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'pending' AND attempts > 0")).isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_attempts")).isEqualTo(starts.size());
	}

	@Test
	void aFullRateWindowSaysWhenTheNextJobMayStart() {
		enqueueMany("job", null, 5);
		FlowControl flow = rate("2/1s");
		Instant first = this.clock.instant();

		CompleteAndClaim claimed = this.db.store()
			.completeAndClaim(List.of(), "w1", request(10, flow), this.clock.instant());
		assertThat(claimed.claimed()).hasSize(2);
		startHandlers(this.db.store(), claimed.claimed(), first, first);
		assertThat(claimed.throttledUntil()).isEqualTo(first.plusSeconds(1));

		this.clock.advance(Duration.ofMillis(999));
		CompleteAndClaim held = this.db.store()
			.completeAndClaim(List.of(), "w1", request(10, flow), this.clock.instant());
		assertThat(held.claimed()).isEmpty();
		assertThat(held.throttledUntil()).isEqualTo(first.plusSeconds(1));

		this.clock.advance(Duration.ofMillis(1));
		assertThat(this.db.store().completeAndClaim(List.of(), "w1", request(10, flow), this.clock.instant()).claimed())
			.hasSize(2);
	}

	@Test
	void aKeysRateLimitHoldsEachKeyApartAndAcrossProcesses() {
		enqueueMany("a", "A", 5);
		enqueueMany("b", "B", 5);
		enqueueMany("none", null, 3);
		FlowControl flow = keyRate("2/1m");
		try (StoreFixture other = this.db.anotherProcess()) {
			List<ClaimedJob> first = claimAndStart(other.store(), 1, flow);
			first.forEach(this::succeed);
			List<ClaimedJob> second = claimAndStart(20, flow);
			second.forEach(this::succeed);
			List<String> all = new ArrayList<>(payloads(first));
			all.addAll(payloads(second));
			assertThat(all).containsExactlyInAnyOrder("a1", "a2", "b1", "b2", "none1", "none2", "none3");
			this.clock.advance(Duration.ofSeconds(59));
			assertThat(claim(other.store(), 20, flow)).isEmpty();
			this.clock.advance(Duration.ofSeconds(1));
			assertThat(payloads(claim(20, flow))).containsExactlyInAnyOrder("a3", "a4", "b3", "b4");
		}
	}

	@Test
	void aQuietKeysJobIsInTheFirstClaimWhileABusyKeyHasThousandsDue() {
		for (int batch = 0; batch < 3; batch++) {
			enqueueMany("busy-" + batch + "-", "busy", 1000);
		}
		this.clock.advance(Duration.ofSeconds(1));
		enqueue("quiet", "quiet");

		// No flow control at all: fairness applies to every keyed job.
		assertThat(payloads(claim(4, FlowControl.NONE))).contains("quiet", "busy-0-1");
	}

	@Test
	void aClaimOfAnOrderedTypeTakesItsWholeRoomFromTheKeysItVisits() {
		List<JobRequest> requests = new ArrayList<>();
		for (int job = 1; job <= 3; job++) {
			for (int key = 0; key < 100; key++) {
				requests.add(JobRequest.of(TYPE, "k" + key + "-" + job).key("key-" + key));
			}
		}
		this.harness.queue.enqueueAll(requests);
		FlowControl flow = ordered(true);

		List<ClaimedJob> first = claim(4, flow);
		assertThat(first).hasSize(4);
		// Keys held by the first claim's running jobs are passed over, not a stop.
		List<ClaimedJob> second = claim(4, flow);
		assertThat(second).hasSize(4);
		Set<String> keys = new HashSet<>();
		first.forEach((job) -> keys.add(job.key()));
		second.forEach((job) -> keys.add(job.key()));
		assertThat(keys).hasSize(8);
		first.forEach(this::succeed);
		second.forEach(this::succeed);
		List<ClaimedJob> third = claim(4, flow);
		assertThat(third).hasSize(4);
		assertThat(payloads(third)).allMatch((payload) -> payload.endsWith("-1"));
	}

	@Test
	void orderedAndKeyLimitedTypesAreClaimedAheadHoldingTheirKeysButNotAnOrderedKeysLastAttempt() {
		this.harness.queue.enqueue(JobRequest.of(TYPE, "a1").key("A").maxAttempts(1));
		enqueue("a2", "A");
		enqueue("b1", "B");
		enqueue("b2", "B");
		FlowControl flow = ordered(true);
		// Every job of this claim waits for a slot: none is free now.
		ClaimRequest ahead = new ClaimRequest("w1", 4, Set.of(), Map.of(TYPE, 4), Set.of(),
				this.clock.instant().plusSeconds(30), Map.of(), 0, Map.of(TYPE, flow));

		List<ClaimedJob> claimed = this.db.store().claim(ahead, this.clock.instant());

		// a1 would fail unrun if its process died while it waits, and a2 may not pass it.
		assertThat(payloads(claimed)).containsExactly("b1");
		assertThat(this.db.store().claim(ahead, this.clock.instant())).as("B is held by b1, claimed ahead").isEmpty();
		assertThat(payloads(claim(4, flow))).containsExactly("a1");
	}

	@Test
	void keysTakeTurnsSoEveryKeyIsServedBeforeAnyIsServedTwice() {
		for (int key = 0; key < 30; key++) {
			enqueueMany("k" + key + "-", "key-" + key, 3);
		}
		Set<String> served = new HashSet<>();
		for (int round = 0; round < 5; round++) {
			for (ClaimedJob job : claim(6, FlowControl.NONE)) {
				assertThat(served.add(job.key())).as(job.key() + " served twice in the first round").isTrue();
			}
		}
		assertThat(served).hasSize(30);
	}

	@Test
	void withinAPriorityKeysTakeTurnsAndAHigherPriorityComesFirst() {
		enqueueMany("busy", "busy", 10);
		enqueue("other", "other");
		this.harness.queue.enqueue(JobRequest.of(TYPE, "urgent").key("urgent").priority(5));
		enqueueMany("plain", null, 10);

		// Round 1 of priority 0 is busy1, other and plain1 (the first job without a key);
		// round 2 starts with busy2.
		assertThat(payloads(claim(5, FlowControl.NONE))).containsExactlyInAnyOrder("urgent", "busy1", "other", "plain1",
				"busy2");
	}

	@Test
	void limitedAndUnlimitedTypesInOneClaimKeepPriorityAcrossTypes() {
		List<JobRequest> bulk = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			bulk.add(JobRequest.of("bulk", "bulk-" + i));
		}
		this.harness.queue.enqueueAll(bulk);
		this.clock.advance(Duration.ofSeconds(1));
		for (int i = 0; i < 3; i++) {
			this.harness.queue.enqueue(JobRequest.of(TYPE, "a" + i).key("A").priority(5));
			this.harness.queue.enqueue(JobRequest.of(TYPE, "b" + i).key("B").priority(5));
		}
		FlowControl flow = keyConcurrency(1);
		ClaimRequest request = new ClaimRequest("w1", 4, Set.of("bulk"), Map.of(TYPE, 4), Set.of(),
				this.clock.instant().plusSeconds(30), Map.of(), 4, Map.of(TYPE, flow));

		assertThat(payloads(this.db.store().claim(request, this.clock.instant()))).containsExactly("a0", "b0", "bulk-0",
				"bulk-1");
	}

	@Test
	void aPausedTypeWithFlowControlIsNotClaimedUntilResumed() {
		enqueue("a1", "A");
		enqueue("none", null);
		FlowControl flow = keyConcurrency(1);
		assertThat(this.db.admin().pause(TYPE, "test", this.clock.instant())).isTrue();
		assertThat(claim(10, flow)).isEmpty();
		assertThat(claim(10, FlowControl.NONE)).isEmpty();
		assertThat(this.db.admin().resume(TYPE)).isTrue();
		assertThat(payloads(claim(10, flow))).containsExactlyInAnyOrder("a1", "none");
	}

	@Test
	void theSnapshotCountsPendingJobsWithAndWithoutAKey() {
		enqueueMany("a", "A", 3);
		enqueueMany("none", null, 2);
		claim(1, keyConcurrency(1));
		SnapshotSettings settings = new SnapshotSettings(Duration.ofMinutes(15), 2, Duration.ofMinutes(3), 10);
		assertThat(this.db.insights().snapshot(this.clock.instant(), settings).counts()).containsEntry(TYPE,
				Map.of(JobStatus.PENDING, 4L, JobStatus.RUNNING, 1L));
	}

	@Test
	void aWorkerRunsARateLimitedHandlerAtItsRateAsTheClockMoves() {
		List<String> ran = new CopyOnWriteArrayList<>();
		this.harness.concurrency(8)
			.handle(new HandlerDefinition(TYPE, (payload, context) -> ran.add(payload.replace("\"", "")), 0, null, 0,
					true, TYPE, 0, rate("2/1s")));
		enqueueMany("job", null, 5);
		JobWorker worker = this.harness.directWorker("w1");

		while (worker.pollOnce() > 0) {
			// drain what the window allows
		}
		assertThat(ran).containsExactly("job1", "job2");
		this.clock.advance(Duration.ofSeconds(1));
		while (worker.pollOnce() > 0) {
			// drain what the window allows
		}
		assertThat(ran).containsExactly("job1", "job2", "job3", "job4");
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'pending' AND attempts = 0")).isEqualTo(1);
	}

	@Test
	void aRunningWorkerStartsTheNextRateLimitedJobWhenTheWindowLetsItNotAtItsNextPoll() {
		WorkerHarness live = WorkerHarness.onSystemClock(this.db).pollInterval(Duration.ofMinutes(10));
		live.handle(
				new HandlerDefinition(TYPE, (payload, context) -> null, 0, null, 0, true, TYPE, 0, rate("1/200ms")));
		List<JobRequest> jobs = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			jobs.add(JobRequest.of(TYPE, i));
		}
		live.queue.enqueueAll(jobs);
		// Far sooner than the poll interval of ten minutes.
		runUntilSucceeded(live, 2, 3);
		List<Instant> starts = this.db.column("SELECT started_at FROM job_attempts ORDER BY started_at")
			.stream()
			.map(this::instant)
			.toList();
		for (int i = 1; i < starts.size(); i++) {
			assertThat(Duration.between(starts.get(i - 1), starts.get(i)))
				.isGreaterThanOrEqualTo(Duration.ofMillis(200));
		}
	}

	@Test
	void aWorkerWhoseClaimOutlastedTheRateWindowClaimsAgainAtOnceNotAtItsNextPoll() {
		// Each claim takes a second of the test clock, as a slow claim takes real time: a
		// claim held back by the window says when it opens, and by the end of the round
		// that moment has passed. The worker must not then sleep until its next poll.
		// No change token: the worker's own commits must not be what wakes it.
		JobStore store = this.db.store();
		JobStore slowClaims = (JobStore) Proxy.newProxyInstance(JobStore.class.getClassLoader(),
				new Class<?>[] { JobStore.class }, (proxy, method, args) -> {
					if (method.getName().equals("changeToken")) {
						return null;
					}
					try {
						return method.invoke(store, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
					finally {
						if (method.getName().equals("completeAndClaim")) {
							this.clock.advance(Duration.ofSeconds(1));
						}
					}
				});
		WorkerHarness slow = new WorkerHarness(this.db, this.clock).ticker(Ticker.SYSTEM)
			.workerStore(slowClaims)
			.concurrency(1)
			.lease(Duration.ofHours(1))
			.pollInterval(Duration.ofHours(1));
		slow.handle(
				new HandlerDefinition(TYPE, (payload, context) -> null, 0, null, 0, true, TYPE, 0, rate("1/1500ms")));
		enqueueMany("job", null, 3);
		// Far sooner than the poll interval or a lease renewal, an hour apart.
		runUntilSucceeded(slow, 1, 3);
	}

	/**
	 * Runs a polling worker of {@code harness} on {@code threads} threads until
	 * {@code jobs} jobs have succeeded, for at most 30 s.
	 */
	private void runUntilSucceeded(WorkerHarness harness, int threads, int jobs) {
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		JobWorker worker = harness.worker("w1", executor);
		worker.start();
		try {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> this.db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'") == jobs);
		}
		finally {
			worker.stop();
			executor.shutdownNow();
		}
	}

	private Instant instant(Object value) {
		if (value instanceof Number millis) {
			return Instant.ofEpochMilli(millis.longValue());
		}
		if (value instanceof java.sql.Timestamp timestamp) {
			return timestamp.toInstant();
		}
		if (value instanceof java.time.OffsetDateTime dateTime) {
			return dateTime.toInstant();
		}
		if (value instanceof java.time.LocalDateTime dateTime) {
			return dateTime.toInstant(java.time.ZoneOffset.UTC);
		}
		throw new IllegalArgumentException("Not an instant: " + value);
	}

	@Test
	void theRateLogKeepsStartsAMarginLongerThanTheWindowThenDeletesThem() {
		enqueueMany("job", null, 10);
		FlowControl flow = rate("2/1s");
		claimAndStart(10, flow).forEach(this::succeed);
		this.clock.advance(Duration.ofSeconds(1));
		claimAndStart(10, flow).forEach(this::succeed);
		// Kept after their window: a claim whose time is behind may still count them.
		assertThat(this.db.count("SELECT count(*) FROM job_rate_starts")).isEqualTo(4);
		// The margin is a minute.
		this.clock.advance(Duration.ofSeconds(61));
		claimAndStart(10, flow).forEach(this::succeed);
		assertThat(this.db.count("SELECT count(*) FROM job_rate_starts")).isEqualTo(2);
	}

	@Test
	void aClaimWhoseTimeIsBehindAnotherProcessesStillCountsEveryStartOfItsWindow() {
		enqueueMany("job", null, 10);
		FlowControl flow = rate("3/1s");
		Instant first = this.clock.instant();
		assertThat(claimAndStart(2, flow)).hasSize(2);
		try (StoreFixture other = this.db.anotherProcess()) {
			// Another process claims with a later time, past the window of the first
			// starts, and sweeps the log.
			assertThat(other.store().claim(request(1, flow), first.plusMillis(1200))).hasSize(1);
		}
		// A claim that read its time before it waited for the lock: its window holds the
		// first two starts and the other process's.
		assertThat(this.db.store().claim(request(10, flow), first.plusMillis(500))).isEmpty();
	}

	@Test
	void aClaimedJobWhoseHandlerHasNotBegunHoldsItsPermitAndCountsFromWhenItBegins() {
		enqueueMany("job", null, 6);
		FlowControl flow = rate("2/1s");
		Instant claimedAt = this.clock.instant();
		List<ClaimedJob> claimed = claim(10, flow);
		assertThat(claimed).hasSize(2);

		// Their handlers have not begun a window later (a loaded machine): still held.
		this.clock.advance(Duration.ofMillis(1500));
		CompleteAndClaim held = this.db.store()
			.completeAndClaim(List.of(), "w1", request(10, flow), this.clock.instant());
		assertThat(held.claimed()).isEmpty();
		assertThat(held.throttledUntil()).as("a window after now at the earliest")
			.isEqualTo(this.clock.instant().plusSeconds(1));

		// They begin now: the window counts them from now, not from their claim.
		Instant began = this.clock.instant();
		startHandlers(this.db.store(), claimed, claimedAt, began);
		this.clock.advance(Duration.ofMillis(999));
		held = this.db.store().completeAndClaim(List.of(), "w1", request(10, flow), this.clock.instant());
		assertThat(held.claimed()).isEmpty();
		assertThat(held.throttledUntil()).isEqualTo(began.plusSeconds(1));
		this.clock.advance(Duration.ofMillis(1));
		assertThat(claim(10, flow)).hasSize(2);
	}

	@Test
	void aKeysPermitIsHeldUntilItsHandlerBeginsInAnotherProcess() {
		enqueueMany("a", "A", 3);
		FlowControl flow = keyRate("1/1s");
		try (StoreFixture other = this.db.anotherProcess()) {
			Instant claimedAt = this.clock.instant();
			List<ClaimedJob> claimed = claim(other.store(), 5, flow);
			assertThat(payloads(claimed)).containsExactly("a1");
			this.clock.advance(Duration.ofSeconds(2));
			assertThat(claim(5, flow)).isEmpty();
			Instant began = this.clock.instant();
			startHandlers(other.store(), claimed, claimedAt, began);
			this.clock.advance(Duration.ofMillis(999));
			assertThat(claim(5, flow)).isEmpty();
			this.clock.advance(Duration.ofMillis(1));
			assertThat(payloads(claimAndStart(5, flow))).containsExactly("a2");
		}
	}

	@Test
	void aDeadWorkersUnstartedPermitIsFreedAWindowAfterItsClaimsLeaseEnded() {
		enqueueMany("job", null, 6);
		FlowControl flow = rate("2/1s");
		Instant claimedAt = this.clock.instant();
		// The worker dies before the handlers begin.
		assertThat(claim(10, flow)).hasSize(2);
		this.clock.advance(LEASE.plusMillis(1));
		assertThat(this.db.store().recoverExpiredLeases(this.clock.instant(), 10)).isEqualTo(2);
		// Its starts count as begun at its lease's end at the latest: for a window after.
		assertThat(claim(10, flow)).isEmpty();
		this.clock.advance(Duration.ofMillis(998));
		assertThat(claim(10, flow)).isEmpty();
		this.clock.advance(Duration.ofMillis(1));
		List<ClaimedJob> next = claimAndStart(10, flow);
		assertThat(next).hasSize(2);
		// And never again: the next window holds only the starts of that claim.
		next.forEach(this::succeed);
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(claimAndStart(10, flow)).hasSize(2);
		Instant now = this.clock.instant();
		assertThat(this.db.column("SELECT started_at FROM job_rate_starts").stream().map(this::instant))
			.as("starts not begun")
			.noneMatch((at) -> at.isAfter(now));
	}

	@Test
	void aJobHandedBackOrCancelledBeforeItsHandlerBeganFreesItsPermit() {
		enqueueMany("job", null, 6);
		FlowControl flow = rate("2/1s");
		Instant claimedAt = this.clock.instant();
		List<ClaimedJob> claimed = claim(10, flow);
		assertThat(claimed).hasSize(2);
		ClaimedJob handedBack = claimed.get(0);
		this.db.store().dropUnstartedStart(handedBack, claimedAt, claimedAt.plus(LEASE));
		this.db.store().complete(List.of(Completion.handedBack(handedBack, claimedAt)), "w1", claimedAt);
		List<ClaimedJob> again = claimAndStart(10, flow);
		assertThat(again).hasSize(1);
		startHandlers(this.db.store(), List.of(claimed.get(1)), claimedAt, claimedAt);
		assertThat(claim(10, flow)).isEmpty();
		assertThat(this.db.count("SELECT count(*) FROM job_rate_starts")).isEqualTo(2);
	}

	@Test
	void aRetryIsAStartOfItsOwnAndItsHandlerMovesOnlyItsOwnStart() {
		enqueueMany("job", null, 1);
		FlowControl flow = rate("3/1s");
		Instant first = this.clock.instant();
		ClaimedJob job = claimAndStart(10, flow).get(0);
		this.db.store().complete(List.of(Completion.retry(job, "BOOM", "failed", first)), "w1", this.clock.instant());
		this.clock.advance(Duration.ofMillis(100));
		Instant claimedAt = this.clock.instant();
		List<ClaimedJob> retried = claim(10, flow);
		assertThat(retried).extracting(ClaimedJob::id).containsExactly(job.id());
		this.clock.advance(Duration.ofMillis(100));
		startHandlers(this.db.store(), retried, claimedAt, this.clock.instant());
		assertThat(this.db.column("SELECT started_at FROM job_rate_starts ORDER BY started_at")
			.stream()
			.map(this::instant)
			.toList()).containsExactly(first, this.clock.instant());
	}

}
