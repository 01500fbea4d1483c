package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.jobqueue.Job;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Claim-ahead ({@code jobqueue.worker.claim-ahead}): a worker holds more jobs claimed
 * than it has slots, in a local buffer, and stays honest about them: leases renewed,
 * priority kept, caps kept, cancels honoured, and the buffer handed back at shutdown
 * without counting an attempt.
 */
public abstract class ClaimAheadTests extends StoreTests {

	private final ExecutorService executor = Executors.newFixedThreadPool(4);

	@AfterEach
	void stopExecutor() {
		this.executor.shutdownNow();
	}

	@Test
	void claimsBeyondTheFreeSlotsAndRunsEveryJobOnce() {
		AtomicInteger calls = new AtomicInteger();
		this.harness.concurrency(2).claimAhead(6).handle(HandlerDefinition.of("noop", (payload, context) -> {
			calls.incrementAndGet();
			return null;
		}));
		for (int i = 0; i < 20; i++) {
			this.harness.queue.enqueue("noop", i);
		}
		JobWorker worker = this.harness.directWorker("w1");

		assertThat(worker.pollOnce()).as("two slots and six ahead").isEqualTo(8);
		while (worker.pollOnce() > 0) {
			// drain
		}

		assertThat(calls).hasValue(20);
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded' AND attempts = 1"))
			.isEqualTo(20);
		assertThat(this.db.count("SELECT count(*) FROM job_attempts")).isEqualTo(20);
	}

	@Test
	void waitingJobsAreClaimedInTheStoreAndTheirLeasesRenewed() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		this.harness.concurrency(1).claimAhead(3).lease(Duration.ofSeconds(30)).handle(blocking("held", release));
		for (int i = 0; i < 6; i++) {
			this.harness.queue.enqueue("held", i);
		}
		JobWorker worker = this.harness.worker("w1", this.executor);

		assertThat(worker.pollOnce()).isEqualTo(4);
		await().atMost(Duration.ofSeconds(10)).until(() -> worker.runningCount() == 1);
		assertThat(worker.waitingCount()).isEqualTo(3);
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running' AND worker_id = 'w1'"))
			.as("waiting jobs are claimed like running ones")
			.isEqualTo(4);
		assertThat(worker.pollOnce()).as("the buffer is full").isZero();

		this.clock.advance(Duration.ofSeconds(11));
		worker.pollOnce();
		Instant renewedUntil = this.clock.instant().plus(Duration.ofSeconds(30));
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running' AND lease_until = ?",
				this.db.timestamp(renewedUntil)))
			.as("the waiting jobs' leases are renewed with the running one's")
			.isEqualTo(4);

		release.countDown();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			worker.pollOnce();
			assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'")).isEqualTo(6);
		});
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE attempts <> 1")).isZero();
	}

	@Test
	void aRenewalRefreshesTheHeartbeatOfWaitingJobsOnlySoNoneShowsAsStuck() throws Exception {
		// Stuck is measured on heartbeat_at: a job waiting for a slot is alive (not
		// started), a started handler keeps its own heartbeat, so a hung one shows.
		CountDownLatch release = new CountDownLatch(1);
		this.harness.concurrency(1).claimAhead(2).lease(Duration.ofSeconds(30)).handle(blocking("held", release));
		for (int i = 0; i < 3; i++) {
			this.harness.queue.enqueue("held", i);
		}
		JobWorker worker = this.harness.worker("w1", this.executor);
		Instant claimedAt = this.clock.instant();
		assertThat(worker.pollOnce()).isEqualTo(3);
		await().atMost(Duration.ofSeconds(10)).until(() -> worker.runningCount() == 1);

		this.clock.advance(Duration.ofSeconds(11));
		worker.pollOnce();

		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running' AND heartbeat_at = ?",
				this.db.timestamp(this.clock.instant())))
			.as("the two waiting jobs are alive as of the renewal")
			.isEqualTo(2);
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running' AND heartbeat_at = ?",
				this.db.timestamp(claimedAt)))
			.as("the running handler's heartbeat is its own")
			.isEqualTo(1);
		release.countDown();
	}

	@Test
	void theBufferRunsHighestPriorityFirstAndANewHigherJobGoesAhead() {
		Semaphore permits = new Semaphore(0);
		List<String> started = new CopyOnWriteArrayList<>();
		this.harness.concurrency(1).claimAhead(4).handle(HandlerDefinition.of("ordered", (payload, context) -> {
			started.add(payload);
			permits.acquire();
			return null;
		}));
		this.harness.queue.enqueue(JobRequest.of("ordered", "low-1").priority(-1));
		this.harness.queue.enqueue(JobRequest.of("ordered", "normal-1"));
		this.clock.advance(Duration.ofMillis(1));
		this.harness.queue.enqueue(JobRequest.of("ordered", "low-2").priority(-1));
		this.harness.queue.enqueue(JobRequest.of("ordered", "normal-2"));
		this.harness.queue.enqueue(JobRequest.of("ordered", "normal-3"));
		JobWorker worker = this.harness.worker("w1", this.executor);

		assertThat(worker.pollOnce()).isEqualTo(5);
		await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == 1);
		permits.release(3);
		await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == 4 && worker.waitingCount() == 1);
		// Low on jobs now (one running and one waiting, below 1 + 4/2): a new higher job
		// is claimed and starts before the lower one already waiting.
		this.harness.queue.enqueue(JobRequest.of("ordered", "urgent").priority(5));
		assertThat(worker.pollOnce()).isEqualTo(1);
		permits.release(10);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			worker.pollOnce();
			assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'")).isEqualTo(6);
		});
		assertThat(started).containsExactly("\"normal-1\"", "\"normal-2\"", "\"normal-3\"", "\"low-1\"", "\"urgent\"",
				"\"low-2\"");
	}

	@Test
	void aQuietKeysJobStartsAtTheNextFreeSlotAheadOfTheBusyKeysJobsClaimedBeforeIt() {
		// Claim-ahead at its default: the worker holds dozens of the busy key's jobs.
		Semaphore permits = new Semaphore(0);
		List<String> started = new CopyOnWriteArrayList<>();
		this.harness.concurrency(1).handle(HandlerDefinition.of("keyed", (payload, context) -> {
			started.add(context.key().orElseThrow());
			permits.acquire();
			return null;
		}));
		for (int i = 0; i < 200; i++) {
			this.harness.queue.enqueue(JobRequest.of("keyed", i).key("busy"));
		}
		JobWorker worker = this.harness.worker("w1", this.executor);
		int claimed = worker.pollOnce();
		assertThat(claimed).as("the slot and the default claim-ahead").isEqualTo(1 + worker.claimAhead());
		await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == 1);
		// Low on jobs: fewer held than the slot and half the claim-ahead.
		int run = claimed - worker.claimAhead() / 2;
		permits.release(run);
		await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == run + 1);
		int waitingBusy = worker.waitingCount();
		assertThat(waitingBusy).as("the busy key's jobs claimed ahead, waiting").isPositive();

		this.harness.queue.enqueue(JobRequest.of("keyed", 0).key("quiet"));
		assertThat(worker.pollOnce()).as("the claim takes the quiet key in its turn, then more of the busy key")
			.isPositive();
		permits.release();
		await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == run + 2);

		assertThat(started.get(run + 1))
			.as("the job started at the next free slot, ahead of %d busy jobs claimed before it", waitingBusy)
			.isEqualTo("quiet");
		permits.release(1_000);
	}

	@Test
	void aCappedTypeCountsItsWaitingJobsAgainstItsCap() {
		this.harness.concurrency(2)
			.claimAhead(8)
			.handle(new HandlerDefinition("capped", (payload, context) -> null, 0, null, 3, true, "test"));
		for (int i = 0; i < 10; i++) {
			this.harness.queue.enqueue("capped", i);
		}
		JobWorker worker = this.harness.worker("w1", neverStarting());

		assertThat(worker.pollOnce()).isEqualTo(3);
		assertThat(worker.waitingCount()).isEqualTo(1);
		assertThat(worker.pollOnce()).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running'")).isEqualTo(3);
	}

	@Test
	void notRepeatableAndGloballyCappedTypesAreNeverClaimedAhead() {
		this.harness.concurrency(2)
			.claimAhead(8)
			.handle(new HandlerDefinition("once", (payload, context) -> null, 0, null, 0, false, "test"))
			.handle(new HandlerDefinition("global", (payload, context) -> null, 0, null, 0, true, "test", 5));
		for (int i = 0; i < 10; i++) {
			this.harness.queue.enqueue("once", i);
			this.harness.queue.enqueue("global", i);
		}
		JobWorker worker = this.harness.worker("w1", neverStarting());

		assertThat(worker.pollOnce()).as("only into the free slots").isEqualTo(2);
		assertThat(worker.waitingCount()).isZero();
		assertThat(worker.pollOnce()).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running'")).isEqualTo(2);
	}

	@Test
	void aJobOnItsLastAttemptIsClaimedOnlyIntoAFreeSlot() {
		// Killed while such a job waits in the buffer, the process would leave it to
		// fail LEASE_EXPIRED:MAX_ATTEMPTS without it ever having run.
		this.harness.concurrency(1).claimAhead(3).handle(HandlerDefinition.of("last", (payload, context) -> null));
		for (int i = 0; i < 3; i++) {
			this.harness.queue.enqueue(JobRequest.of("last", i).maxAttempts(1).priority(9));
		}
		for (int i = 0; i < 4; i++) {
			this.harness.queue.enqueue(JobRequest.of("last", 10 + i).maxAttempts(3));
		}
		JobWorker worker = this.harness.worker("w1", neverStarting());

		assertThat(worker.pollOnce()).as("one into the slot, three ahead").isEqualTo(4);
		assertThat(worker.waitingCount()).isEqualTo(3);
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running' AND max_attempts = 1"))
			.as("only the job starting at once is on its last attempt")
			.isEqualTo(1);
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running' AND max_attempts = 3"))
			.isEqualTo(3);
	}

	@Test
	void aCappedTypesJobOnItsLastAttemptIsClaimedOnlyIntoAFreeSlot() {
		this.harness.concurrency(1)
			.claimAhead(3)
			.handle(new HandlerDefinition("capped", (payload, context) -> null, 0, null, 4, true, "test"));
		for (int i = 0; i < 3; i++) {
			this.harness.queue.enqueue(JobRequest.of("capped", i).maxAttempts(1).priority(9));
		}
		for (int i = 0; i < 4; i++) {
			this.harness.queue.enqueue(JobRequest.of("capped", 10 + i).maxAttempts(3));
		}
		JobWorker worker = this.harness.worker("w1", neverStarting());

		assertThat(worker.pollOnce()).isEqualTo(4);
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running' AND max_attempts = 1"))
			.isEqualTo(1);
	}

	@Test
	void aCancelledWaitingJobNeverStarts() {
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger calls = new AtomicInteger();
		this.harness.concurrency(1).claimAhead(2).handle(HandlerDefinition.of("held", (payload, context) -> {
			calls.incrementAndGet();
			release.await();
			return null;
		}));
		this.harness.queue.enqueue("held", 1);
		long waitingJob = this.harness.queue.enqueue("held", 2);
		JobWorker worker = this.harness.worker("w1", this.executor);
		this.harness.queue.setSignals(worker);
		assertThat(worker.pollOnce()).isEqualTo(2);
		await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() == 1);

		assertThat(this.harness.queue.cancel(waitingJob)).isTrue();
		worker.pollOnce();

		assertThat(worker.waitingCount()).isZero();
		Job cancelled = this.harness.queue.find(waitingJob).orElseThrow();
		assertThat(cancelled.status()).isEqualTo(JobStatus.CANCELLED);
		release.countDown();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			worker.pollOnce();
			assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'")).isEqualTo(1);
		});
		assertThat(calls).as("the cancelled job never ran").hasValue(1);
	}

	@Test
	void gracefulStopHandsTheBufferBackAtOnceWithoutCountingAnAttempt() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		this.harness.concurrency(1)
			.claimAhead(3)
			.shutdownTimeout(Duration.ofSeconds(30))
			.handle(blocking("held", release));
		List<Long> ids = new CopyOnWriteArrayList<>();
		for (int i = 0; i < 5; i++) {
			ids.add(this.harness.queue.enqueue("held", i));
		}
		JobWorker worker = this.harness.worker("w1", this.executor);
		worker.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> worker.runningCount() == 1 && worker.waitingCount() == 3);

		CompletableFuture<Integer> stopping = CompletableFuture.supplyAsync(worker::stop);
		// Handed back while the running job still runs: the buffer does not wait for it.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.db.count("SELECT count(*) FROM jobs WHERE status = 'pending'") == 4);
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'running'")).isEqualTo(1);
		release.countDown();
		assertThat(stopping.get(30, TimeUnit.SECONDS)).as("nothing cut off").isZero();

		assertThat(this.harness.queue.find(ids.get(0)).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
		for (long id : ids.subList(1, 4)) {
			Job job = this.harness.queue.find(id).orElseThrow();
			assertThat(job.status()).isEqualTo(JobStatus.PENDING);
			assertThat(job.attempts()).as("attempt given back").isZero();
			assertThat(job.errorDetail()).isNull();
			assertThat(this.db.column("SELECT outcome FROM job_attempts WHERE job_id = ?", id))
				.containsExactly("HANDED_BACK");
			assertThat(this.db.column("SELECT event FROM job_events WHERE job_id = ? ORDER BY id", id))
				.containsExactly("ENQUEUED", "CLAIMED", "HANDED_BACK");
			assertThat(this.db.column("SELECT detail FROM job_events WHERE job_id = ? AND event = 'HANDED_BACK'", id))
				.singleElement()
				.asString()
				.contains("claimed ahead");
		}
		assertThat(this.harness.queue.find(ids.get(4)).orElseThrow().attempts()).isZero();

		// The handed-back jobs run once, in their order, on the next worker.
		JobWorker next = this.harness.directWorker("w2");
		while (next.pollOnce() > 0) {
			// drain
		}
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded' AND attempts = 1")).isEqualTo(5);
	}

	private static HandlerDefinition blocking(String type, CountDownLatch release) {
		return HandlerDefinition.of(type, (payload, context) -> {
			release.await();
			return null;
		});
	}

	/** An executor whose threads never start: dispatched runs stay in flight. */
	private static ExecutorService neverStarting() {
		return Executors.newSingleThreadExecutor((runnable) -> new Thread(() -> {
		}));
	}

}
