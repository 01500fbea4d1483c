package dev.jobqueue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.HandlerRuns;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.LongTest;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;
import dev.jobqueue.testing.WorkerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Many threads, several JVMs and a SIGKILL on one file: no job lost, none done twice. */
@LongTest
class ProcessesAndThreadsTests {

	static final int JOBS = 20_000;

	@TempDir
	Path dir;

	@Test
	void eightWorkerThreadsInOneJvmProcessTwentyThousandJobsExactlyOnce() {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			DefaultJobQueue queue = queue(db, new HandlerRegistry());
			enqueueNoops(queue, JOBS);
			HandlerRuns ran = HandlerRuns.in(this.dir, "ran");
			JobWorker worker = harness(db, 8, Duration.ofSeconds(30))
				.handle(HandlerDefinition.of("noop", (payload, context) -> ran.record(context.jobId())))
				.worker("in-test-8", Executors.newFixedThreadPool(8));
			queue.setSignals(worker);
			worker.start();
			await().atMost(Duration.ofMinutes(2))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'") == JOBS);
			worker.stop();
			ran.close();
			assertExactlyOnce(db, JOBS);
			assertRanOnceEach(db, HandlerRuns.read(this.dir, "ran"), JOBS);
			assertThat(worker.loopFailures()).isZero();
		}
	}

	@Test
	void twoWorkerJvmsOnOneFileProcessTwentyThousandJobsExactlyOnce() throws Exception {
		Path file = this.dir.resolve("queue.db");
		try (TestDatabase db = TestDatabase.create(file, "")) {
			DefaultJobQueue queue = queue(db, new HandlerRegistry());
			// Held back until both JVMs work: one started a second earlier could drain
			// the
			// whole backlog alone.
			queue.pause("noop");
			enqueueNoops(queue, JOBS);
			List<Process> processes = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				processes.add(WorkerProcess.launch(file, 4, 30_000, "drain", this.dir.resolve("worker-" + i + ".log")));
			}
			await().atMost(Duration.ofMinutes(1))
				.pollInterval(Duration.ofMillis(100))
				.until(() -> db.count("SELECT count(*) FROM job_workers") == 2);
			queue.resume("noop");
			for (int i = 0; i < processes.size(); i++) {
				Process process = processes.get(i);
				assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("worker %d finished", i).isTrue();
				assertThat(process.exitValue()).as(Files.readString(this.dir.resolve("worker-" + i + ".log"))).isZero();
			}
			assertExactlyOnce(db, JOBS);
			assertRanOnceEach(db, HandlerRuns.read(this.dir, "ran"), JOBS);
			assertThat(db.count("SELECT count(DISTINCT worker_id) FROM job_attempts")).isEqualTo(2);
		}
	}

	@Test
	void jobOfAWorkerKilledMidRunRunsAgainOrFailsWhenNotRepeatable() throws Exception {
		Path file = this.dir.resolve("queue.db");
		try (TestDatabase db = TestDatabase.create(file, "")) {
			DefaultJobQueue queue = queue(db, new HandlerRegistry());
			long repeatable = queue.enqueue("slow", "once more");
			long once = queue.enqueue("slow-once", "only once");
			Process victim = WorkerProcess.launch(file, 2, 1500, "block", this.dir.resolve("victim.log"));
			await().atMost(Duration.ofSeconds(60))
				.until(() -> Files.exists(this.dir.resolve("started-" + repeatable))
						&& Files.exists(this.dir.resolve("started-" + once)));
			victim.destroyForcibly();
			assertThat(victim.waitFor(10, TimeUnit.SECONDS)).isTrue();
			assertThat(victim.exitValue()).isEqualTo(137);

			// The victim's lease: a lease is taken back after it was seen expired for a
			// whole lease of the rescuer's.
			JobWorker rescuer = harness(db, 2, Duration.ofMillis(1500))
				.handle(HandlerDefinition.of("slow", (payload, context) -> "done"))
				.handle(new HandlerDefinition("slow-once", (payload, context) -> "must not run", 0, null, 0, false,
						"test"))
				.worker("in-test-2", Executors.newFixedThreadPool(2));
			rescuer.start();
			await().atMost(Duration.ofSeconds(30))
				.until(() -> db.count("SELECT count(*) FROM jobs WHERE status IN ('succeeded', 'failed')") == 2);
			rescuer.stop();

			Job rerun = queue.find(repeatable).orElseThrow();
			assertThat(rerun.status()).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(rerun.attempts()).isEqualTo(2);
			assertThat(db.column("SELECT outcome FROM job_attempts WHERE job_id = ? ORDER BY run", repeatable))
				.containsExactly("LEASE_EXPIRED", "SUCCEEDED");
			assertThat(db.column("SELECT count(DISTINCT worker_id) FROM job_attempts WHERE job_id = ?", repeatable))
				.containsExactly(2);
			assertThat(db.column("SELECT event FROM job_events WHERE job_id = ? ORDER BY id", repeatable))
				.containsExactly("ENQUEUED", "CLAIMED", "RECOVERED", "CLAIMED", "SUCCEEDED");
			Job notRepeated = queue.find(once).orElseThrow();
			assertThat(notRepeated.status()).isEqualTo(JobStatus.FAILED);
			assertThat(notRepeated.errorCode()).isEqualTo("LEASE_EXPIRED:NOT_REPEATABLE");
			assertThat(db.count("SELECT count(*) FROM job_attempts WHERE job_id = ?", once)).isEqualTo(1);
		}
	}

	@Test
	void shutdownUnderLoadHandsBackUnfinishedJobsWithoutCountingThem() throws Exception {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			DefaultJobQueue queue = queue(db, new HandlerRegistry());
			for (int i = 0; i < 40; i++) {
				queue.enqueue("sleepy", i);
			}
			// The first four runs end at once; the next four fill every slot and wait
			// until the shutdown
			// interrupts them, so the shutdown timeout passes with four jobs running,
			// whatever the machine's speed.
			AtomicInteger started = new AtomicInteger();
			CountDownLatch slotsFull = new CountDownLatch(4);
			HandlerRuns ran = HandlerRuns.in(this.dir, "ran");
			WorkerHarness firstHarness = harness(db, 4, Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
				.shutdownTimeout(Duration.ofMillis(100));
			firstHarness.handle(HandlerDefinition.of("sleepy", (payload, context) -> {
				ran.record(context.jobId());
				if (started.incrementAndGet() > 4) {
					slotsFull.countDown();
					new CountDownLatch(1).await();
				}
				return null;
			}));
			JobWorker first = firstHarness.worker("first", Executors.newFixedThreadPool(4));
			first.start();
			assertThat(slotsFull.await(20, TimeUnit.SECONDS)).isTrue();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'") == 4);
			int handedBack = first.stop();
			assertThat(handedBack).isEqualTo(4);
			assertThat(started.get()).as("no run started after the slots filled").isEqualTo(8);
			assertThat(db.count("SELECT count(*) FROM jobs WHERE status = 'running'")).isZero();
			// With claim-ahead the worker also held the other 32 jobs, waiting for a
			// slot: the
			// stop hands them back too, attempt not counted, each saying it had not
			// started.
			assertThat(db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'HANDED_BACK'"))
				.isEqualTo(handedBack + 32);
			assertThat(db.count("SELECT count(*) FROM job_events WHERE event = 'HANDED_BACK' AND detail LIKE "
					+ "'claimed ahead%before the job started'"))
				.isEqualTo(32);

			JobWorker second = harness(db, 8, Duration.ofSeconds(30))
				.handle(HandlerDefinition.of("sleepy", (payload, context) -> ran.record(context.jobId())))
				.worker("in-test-8", Executors.newFixedThreadPool(8));
			second.start();
			await().atMost(Duration.ofSeconds(30))
				.until(() -> db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'") == 40);
			second.stop();
			ran.close();
			assertExactlyOnce(db, 40, handedBack + 32);
			assertThat(db.count("SELECT count(*) FROM jobs WHERE attempts != 1")).isZero();
			// The four interrupted bodies started again on the second worker; every other
			// body ran once.
			Map<Long, Integer> runs = HandlerRuns.read(this.dir, "ran");
			assertThat(runs).hasSize(40);
			assertThat(HandlerRuns.total(runs)).isEqualTo(44);
			assertThat(runs.entrySet().stream().filter((run) -> run.getValue() == 2).map(Map.Entry::getKey))
				.containsExactlyInAnyOrderElementsOf(db.column(
						"SELECT job_id FROM job_events WHERE event = 'HANDED_BACK' AND detail NOT LIKE 'claimed ahead%'")
					.stream()
					.map((id) -> ((Number) id).longValue())
					.toList());
		}
	}

	/**
	 * Every job succeeded once and was claimed once: one attempt row each (a run lost to
	 * an expired lease leaves a second one), and the database's invariants hold.
	 */
	private static void assertExactlyOnce(TestDatabase db, int jobs) {
		assertExactlyOnce(db, jobs, 0);
	}

	/** As above, with {@code handedBack} claims handed back on a stop beside them. */
	private static void assertExactlyOnce(TestDatabase db, int jobs, int handedBack) {
		assertThat(Invariants.violations(db.file())).isEmpty();
		assertThat(db.count("SELECT count(*) FROM job_attempts")).as("attempt rows").isEqualTo(jobs + handedBack);
		assertThat(db.count("SELECT count(*) FROM job_attempts WHERE outcome != 'SUCCEEDED'"))
			.as("attempt rows that did not succeed")
			.isEqualTo(handedBack);
		assertThat(db.count("SELECT count(*) FROM jobs WHERE runs != 1 + (SELECT count(*) FROM job_attempts a "
				+ "WHERE a.job_id = jobs.id AND a.outcome = 'HANDED_BACK')"))
			.as("jobs claimed more often than they were handed back and run")
			.isZero();
		assertThat(db.count("SELECT count(*) FROM jobs")).isEqualTo(jobs);
		assertThat(db.count("SELECT count(*) FROM jobs WHERE status != 'succeeded'")).isZero();
		assertThat(db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'SUCCEEDED'")).isEqualTo(jobs);
		assertThat(db.count("SELECT count(*) FROM (SELECT job_id FROM job_attempts WHERE outcome = 'SUCCEEDED' "
				+ "GROUP BY job_id HAVING count(*) > 1)"))
			.isZero();
		assertThat(db.count("SELECT count(*) FROM job_attempts WHERE outcome IS NULL")).isZero();
		assertThat(db.count("SELECT count(*) FROM job_events WHERE event = 'SUCCEEDED'")).isEqualTo(jobs);
	}

	/** Each job's handler body ran exactly once, as the bodies themselves recorded. */
	private static void assertRanOnceEach(TestDatabase db, Map<Long, Integer> runs, int jobs) {
		assertThat(runs).as("jobs whose handler ran").hasSize(jobs);
		assertThat(runs.entrySet().stream().filter((run) -> run.getValue() != 1).map(Map.Entry::getKey).toList())
			.as("jobs whose handler ran more than once")
			.isEmpty();
		assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(
				db.column("SELECT id FROM jobs").stream().map((id) -> ((Number) id).longValue()).toList());
	}

	private static void enqueueNoops(DefaultJobQueue queue, int count) {
		List<JobRequest> batch = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			batch.add(JobRequest.of("noop", i));
			if (batch.size() == 1000) {
				queue.enqueueAll(batch);
				batch.clear();
			}
		}
		queue.enqueueAll(batch);
	}

	private static DefaultJobQueue queue(TestDatabase db, HandlerRegistry handlers) {
		return new DefaultJobQueue(db.store(), db.admin(), WorkerHarness.CODEC, handlers, Clock.systemUTC(),
				new EnqueueLimits(3, 1 << 20), null);
	}

	/**
	 * A worker on the system clock polling every 100 ms, retrying after 10-100 ms, with
	 * the worker's own enqueue limits.
	 */
	private static WorkerHarness harness(TestDatabase db, int concurrency, Duration lease) {
		return WorkerHarness.onSystemClock(db)
			.concurrency(concurrency)
			.lease(lease)
			.pollInterval(Duration.ofMillis(100))
			.shutdownTimeout(Duration.ofSeconds(5))
			.maxSnoozes(10)
			.workerDefaultLimits();
	}

}
