package dev.jobqueue.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.TortureWorker;
import dev.jobqueue.testing.WorkerHarness;
import dev.jobqueue.testing.LongTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The process torture test: worker JVMs on one SQLite file, jobs of mixed types enqueued
 * while they run, and a chaos loop that SIGKILLs a random worker every few seconds and
 * starts a new one. At the end the database itself must show every job final, none lost,
 * none with two succeeded attempts, attempts, events and jobs in agreement, and no lock
 * error having reached a caller. Some jobs are chains whose handler says what runs next
 * ({@code JobContext.continueWith}): every step must exist exactly once, however the
 * kills fell between a handler's end and its outcome's write. Prints one
 * {@code TORTURE ...} summary line.
 * <p>
 * Short by default (CI). The long run:
 * {@code ./mvnw -B -pl queue-spring-boot-autoconfigure -Ptorture test}, or set
 * {@code torture.jobs}, {@code torture.processes}, {@code torture.threads},
 * {@code torture.kills} (-1: keep killing until the jobs are done), {@code torture.lease}
 * (ms) and {@code torture.seed} as system properties.
 */
@LongTest
class TortureTests {

	static final int JOBS = Integer.getInteger("torture.jobs", 5_000);

	static final int PROCESSES = Integer.getInteger("torture.processes", 3);

	static final int THREADS = Integer.getInteger("torture.threads", 4);

	static final int KILLS = Integer.getInteger("torture.kills", 3);

	static final long LEASE = Long.getLong("torture.lease", 2_000);

	static final long SEED = Long.getLong("torture.seed", 7);

	static final Pattern LOOP_FAILURES = Pattern.compile("loopFailures=(\\d+)");

	@TempDir
	Path dir;

	@Test
	void workersKilledAtRandomLoseNoJobAndRunNoneTwice() throws Exception {
		long started = System.nanoTime();
		Path file = this.dir.resolve("torture.db");
		Path marker = this.dir.resolve("enqueue-done");
		Random random = new Random(SEED);
		try (TestDatabase db = TestDatabase.create(file, "")) {
			DefaultJobQueue queue = new DefaultJobQueue(db.store(), db.admin(), WorkerHarness.CODEC,
					new HandlerRegistry(), Clock.systemUTC(), new EnqueueLimits(10, 1 << 20), null);
			List<Path> logs = new CopyOnWriteArrayList<>();
			List<Process> workers = new CopyOnWriteArrayList<>();
			for (int i = 0; i < PROCESSES; i++) {
				workers.add(launch(file, marker, logs));
			}

			AtomicLong enqueued = new AtomicLong();
			AtomicLong enqueueErrors = new AtomicLong();
			AtomicInteger expectedFailures = new AtomicInteger();
			AtomicLong expectedContinuations = new AtomicLong();
			AtomicLong chains = new AtomicLong();
			Thread enqueuer = new Thread(() -> enqueue(queue, new Random(SEED + 1), enqueued, enqueueErrors,
					expectedFailures, expectedContinuations, chains), "torture-enqueuer");
			enqueuer.start();

			AtomicBoolean done = new AtomicBoolean();
			AtomicInteger kills = new AtomicInteger();
			Thread chaos = new Thread(() -> chaos(random, workers, file, marker, logs, done, kills), "torture-chaos");
			chaos.start();

			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120 + JOBS / 50);
			enqueuer.join(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
			while (System.nanoTime() < deadline && (enqueuer.isAlive()
					|| db.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')") > 0
					|| (KILLS >= 0 && kills.get() < KILLS))) {
				Thread.sleep(250);
			}
			done.set(true);
			chaos.join();
			Files.writeString(marker, "done");
			int exitFailures = 0;
			for (Process worker : workers) {
				if (!worker.waitFor(60, TimeUnit.SECONDS)) {
					worker.destroyForcibly();
					exitFailures++;
				}
				else if (worker.exitValue() != 0) {
					exitFailures++;
				}
			}

			long jobs = db.count("SELECT count(*) FROM jobs");
			long unfinished = db.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')");
			long lost = enqueued.get() + expectedContinuations.get()
					- db.count("SELECT count(*) FROM jobs WHERE status IN ('succeeded', 'failed', 'cancelled')");
			// A chain enqueued with k has its last step (payload 0) at index k; a step
			// lost
			// to a kill leaves a chain without it, a step created twice shows as two jobs
			// at one index.
			long chainSteps = db.count("SELECT count(*) FROM jobs WHERE type = 'chain'");
			long lostSteps = db.count("SELECT count(*) FROM jobs h WHERE h.type = 'chain' AND h.chain_index = 0 "
					+ "AND NOT EXISTS (SELECT 1 FROM jobs s WHERE s.chain_id = h.id AND s.payload = '0' "
					+ "AND s.chain_index = CAST(h.payload AS INTEGER))");
			long duplicatedSteps = db.count("SELECT count(*) FROM (SELECT chain_id, chain_index FROM jobs "
					+ "WHERE chain_id IS NOT NULL GROUP BY chain_id, chain_index HAVING count(*) > 1)");
			long duplicated = db
				.count("SELECT count(*) FROM (SELECT job_id FROM job_attempts WHERE outcome = 'SUCCEEDED' "
						+ "GROUP BY job_id HAVING count(*) > 1)");
			long succeeded = db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'");
			long failed = db.count("SELECT count(*) FROM jobs WHERE status = 'failed'");
			long unexpectedFailures = db
				.count("SELECT count(*) FROM jobs WHERE status = 'failed' AND type != 'doomed'");
			long doomedSucceeded = db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded' AND type = 'doomed'");
			long attempts = db.count("SELECT count(*) FROM job_attempts");
			long recovered = db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'LEASE_EXPIRED'");
			long openAttempts = db.count("SELECT count(*) FROM job_attempts WHERE outcome IS NULL");
			long lockErrorsRecorded = db
				.count("SELECT count(*) FROM job_attempts WHERE error_code LIKE '%JobQueueException%' "
						+ "OR error_detail LIKE '%SQLITE_BUSY%' OR error_detail LIKE '%locked%'");
			long loopFailures = loopFailures(logs);
			Map<Long, Integer> bodies = completedBodies(this.dir);
			long bodiesTwice = bodies.values().stream().filter((runs) -> runs > 1).count();
			// Chain steps whose body ran to its end twice: a kill between the handler's
			// end
			// and the outcome's write, the window in which a handler's own enqueue would
			// create the next step twice.
			long chainBodiesTwice = db.column("SELECT id FROM jobs WHERE type = 'chain'")
				.stream()
				.filter((id) -> bodies.getOrDefault(((Number) id).longValue(), 0) > 1)
				.count();
			long succeededWithoutBody = db.column("SELECT id FROM jobs WHERE status = 'succeeded'")
				.stream()
				.filter((id) -> !bodies.containsKey(((Number) id).longValue()))
				.count();
			List<String> violations = Invariants.violations(file);
			double seconds = (System.nanoTime() - started) / 1e9;
			String summary = String.format(java.util.Locale.ROOT, "TORTURE jobs=%d enqueued=%d processes=%d started=%d "
					+ "threads=%d kills=%d lost=%d duplicated=%d unfinished=%d succeeded=%d failed=%d (expected %d) "
					+ "unexpectedFailures=%d attempts=%d leaseRecoveries=%d handlerBodiesRunTwice=%d "
					+ "succeededWithoutHandler=%d openAttempts=%d lockErrorsInJobs=%d enqueueErrors=%d loopFailures=%d "
					+ "badExits=%d invariantViolations=%d chains=%d chainSteps=%d chainBodiesRunTwice=%d lostSteps=%d "
					+ "duplicatedSteps=%d seconds=%.0f seed=%d", jobs, enqueued.get(), PROCESSES, logs.size(), THREADS,
					kills.get(), lost, duplicated, unfinished, succeeded, failed, expectedFailures.get(),
					unexpectedFailures, attempts, recovered, bodiesTwice, succeededWithoutBody, openAttempts,
					lockErrorsRecorded, enqueueErrors.get(), loopFailures, exitFailures, violations.size(),
					chains.get(), chainSteps, chainBodiesTwice, lostSteps, duplicatedSteps, seconds, SEED);
			System.out.println(summary);
			System.err.println(summary);
			Files.writeString(Path.of("target", "torture-summary.txt"), summary + System.lineSeparator());

			assertThat(violations).isEmpty();
			assertThat(enqueued.get()).isEqualTo(JOBS);
			assertThat(jobs).isEqualTo(JOBS + expectedContinuations.get());
			assertThat(lostSteps).isZero();
			assertThat(duplicatedSteps).isZero();
			assertThat(chainSteps).isEqualTo(chains.get() + expectedContinuations.get());
			assertThat(unfinished).isZero();
			assertThat(lost).isZero();
			assertThat(duplicated).isZero();
			assertThat(openAttempts).isZero();
			assertThat(unexpectedFailures).isZero();
			assertThat(doomedSucceeded).isZero();
			assertThat(succeededWithoutBody).as("every succeeded job's handler ran to its end").isZero();
			assertThat(bodiesTwice).as("a handler runs twice only when a kill lost its outcome")
				.isLessThanOrEqualTo(recovered);
			assertThat(failed).isEqualTo(expectedFailures.get());
			assertThat(enqueueErrors.get()).isZero();
			assertThat(lockErrorsRecorded).isZero();
			assertThat(loopFailures).isZero();
			assertThat(exitFailures).isZero();
			if (KILLS > 0) {
				assertThat(kills.get()).isGreaterThanOrEqualTo(KILLS);
			}
		}
	}

	private Process launch(Path file, Path marker, List<Path> logs) {
		Path log = this.dir.resolve("worker-" + logs.size() + ".log");
		logs.add(log);
		try {
			return TortureWorker.launch(file, THREADS, LEASE, marker, log);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Enqueues the jobs in batches while the workers run; an error is counted, and the
	 * batch tried again.
	 */
	private static void enqueue(DefaultJobQueue queue, Random random, AtomicLong enqueued, AtomicLong errors,
			AtomicInteger expectedFailures, AtomicLong expectedContinuations, AtomicLong chains) {
		List<JobRequest> batch = new ArrayList<>();
		for (int i = 0; i < JOBS; i++) {
			int roll = random.nextInt(1000);
			if (roll < 800) {
				batch.add(JobRequest.of("fast", i));
			}
			else if (roll < 880) {
				batch.add(JobRequest.of("slow", 10 + random.nextInt(90)));
			}
			else if (roll < 950) {
				batch.add(JobRequest.of("flaky", 1 + random.nextInt(2)));
			}
			else if (roll < 953) {
				batch.add(JobRequest.of("heartbeat", 5 + random.nextInt(4)));
			}
			else if (roll < 983) {
				int steps = 1 + random.nextInt(4);
				batch.add(JobRequest.of("chain", steps));
				expectedContinuations.addAndGet(steps);
				chains.incrementAndGet();
			}
			else {
				batch.add(JobRequest.of("doomed", i).maxAttempts(2));
				expectedFailures.incrementAndGet();
			}
			if (batch.size() == 100 || i == JOBS - 1) {
				while (true) {
					try {
						enqueued.addAndGet(queue.enqueueAll(batch).size());
						break;
					}
					catch (RuntimeException ex) {
						errors.incrementAndGet();
						ex.printStackTrace();
					}
				}
				batch.clear();
			}
		}
	}

	/** Every few seconds, SIGKILLs a random worker and starts a new one in its place. */
	private void chaos(Random random, List<Process> workers, Path file, Path marker, List<Path> logs,
			AtomicBoolean done, AtomicInteger kills) {
		try {
			while (!done.get() && (KILLS < 0 || kills.get() < KILLS)) {
				long pause = 2_000 + random.nextInt(3_000);
				long until = System.currentTimeMillis() + pause;
				while (!done.get() && System.currentTimeMillis() < until) {
					Thread.sleep(50);
				}
				if (done.get()) {
					return;
				}
				int victim = random.nextInt(workers.size());
				Process process = workers.get(victim);
				process.destroyForcibly();
				process.waitFor(10, TimeUnit.SECONDS);
				kills.incrementAndGet();
				workers.set(victim, launch(file, marker, logs));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * How many times each job's handler body ran to its end, from the workers' completion
	 * files.
	 */
	private static Map<Long, Integer> completedBodies(Path dir) throws IOException {
		Map<Long, Integer> bodies = new HashMap<>();
		try (java.util.stream.Stream<Path> files = Files.list(dir)) {
			for (Path file : files.filter((f) -> f.getFileName().toString().startsWith("completed-")).toList()) {
				for (String line : Files.readAllLines(file)) {
					if (!line.isBlank()) {
						bodies.merge(Long.parseLong(line.strip()), 1, Integer::sum);
					}
				}
			}
		}
		return bodies;
	}

	/** The last loop-failure count each worker printed, summed. */
	private static long loopFailures(List<Path> logs) throws IOException {
		long total = 0;
		for (Path log : logs) {
			long last = 0;
			for (String line : Files.readAllLines(log)) {
				Matcher matcher = LOOP_FAILURES.matcher(line);
				if (matcher.find()) {
					last = Long.parseLong(matcher.group(1));
				}
			}
			total += last;
		}
		return total;
	}

}
