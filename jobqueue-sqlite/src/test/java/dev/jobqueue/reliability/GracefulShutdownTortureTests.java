package dev.jobqueue.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.JobRequest;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.testing.GracefulTortureWorker;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.LongTest;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The graceful-shutdown torture test, beside the SIGKILL one: worker JVMs on one SQLite
 * file are stopped again and again by SIGTERM (a rolling deploy), with a short shutdown
 * timeout, while handlers of 0–800 ms run, half of them {@code repeatable = false}. At
 * the end: no job lost, none succeeded twice, no non-repeatable body started twice, every
 * job final (succeeded, or failed with {@code SHUTDOWN:NOT_REPEATABLE} when cut off), and
 * no lease left to expire, and the stops hit running bodies: each SIGTERM waits (a while)
 * for its victim to start a body long enough to outlast the shutdown timeout, and at the
 * end some running jobs must have been cut off (handed back, or failed as not
 * repeatable). Prints one {@code GRACEFUL ...} summary line.
 * <p>
 * Short by default (CI). The long run is in the {@code torture} profile; knobs:
 * {@code graceful.jobs}, {@code graceful.processes}, {@code graceful.threads},
 * {@code graceful.terms} (-1: until the jobs are done), {@code graceful.shutdownTimeout}
 * (ms), {@code graceful.seed}.
 */
@LongTest
class GracefulShutdownTortureTests {

	static final int JOBS = Integer.getInteger("graceful.jobs", 1_000);

	static final int PROCESSES = Integer.getInteger("graceful.processes", 3);

	static final int THREADS = Integer.getInteger("graceful.threads", 4);

	static final int TERMS = Integer.getInteger("graceful.terms", 4);

	static final long SHUTDOWN_TIMEOUT = Long.getLong("graceful.shutdownTimeout", 200);

	static final long LEASE = 2_000;

	static final long SEED = Long.getLong("graceful.seed", 11);

	/**
	 * A body this long (ms) outlasts the shutdown timeout when a SIGTERM falls as it
	 * starts.
	 */
	static final long LONG_BODY = SHUTDOWN_TIMEOUT + 200;

	@TempDir
	Path dir;

	@Test
	void workersStoppedBySigtermAgainAndAgainLoseNothingAndRunNoNonRepeatableBodyTwice() throws Exception {
		long began = System.nanoTime();
		Path file = this.dir.resolve("graceful.db");
		Path marker = this.dir.resolve("enqueue-done");
		try (TestDatabase db = TestDatabase.create(file, "")) {
			DefaultJobQueue queue = new DefaultJobQueue(db.store(), db.admin(), WorkerHarness.CODEC,
					new HandlerRegistry(), Clock.systemUTC(), new EnqueueLimits(10, 1 << 20), null);
			List<Path> logs = new CopyOnWriteArrayList<>();
			List<Process> workers = new CopyOnWriteArrayList<>();
			for (int i = 0; i < PROCESSES; i++) {
				workers.add(launch(file, marker, logs));
			}
			AtomicLong enqueued = new AtomicLong();
			Thread enqueuer = new Thread(() -> enqueue(queue, new Random(SEED + 1), enqueued), "graceful-enqueuer");
			enqueuer.start();
			AtomicBoolean done = new AtomicBoolean();
			AtomicInteger terms = new AtomicInteger();
			AtomicInteger badExits = new AtomicInteger();
			AtomicInteger onRunningBodies = new AtomicInteger();
			Thread chaos = new Thread(() -> terminate(new Random(SEED), workers, db, file, marker, logs, done, terms,
					onRunningBodies, badExits), "graceful-chaos");
			chaos.start();

			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120 + JOBS / 20);
			enqueuer.join(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
			while (System.nanoTime() - deadline < 0 && (enqueuer.isAlive()
					|| db.count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')") > 0
					|| (TERMS >= 0 && terms.get() < TERMS))) {
				Thread.sleep(250);
			}
			done.set(true);
			chaos.join();
			Files.writeString(marker, "done");
			for (Process worker : workers) {
				if (!worker.waitFor(60, TimeUnit.SECONDS)) {
					worker.destroyForcibly();
					badExits.incrementAndGet();
				}
				else if (worker.exitValue() != 0) {
					badExits.incrementAndGet();
				}
			}

			long jobs = db.count("SELECT count(*) FROM jobs");
			long unfinished = db.count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')");
			long lost = enqueued.get()
					- db.count("SELECT count(*) FROM jobs WHERE status IN ('succeeded', 'failed', 'cancelled')");
			long doubleSuccesses = db.count("SELECT count(*) FROM (SELECT job_id FROM job_attempts "
					+ "WHERE outcome = 'SUCCEEDED' GROUP BY job_id HAVING count(*) > 1)");
			long succeeded = db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'");
			long failedCutOff = db.count(
					"SELECT count(*) FROM jobs WHERE status = 'failed' AND type = 'charge' " + "AND error_code = ?",
					ErrorCodes.SHUTDOWN_NOT_REPEATABLE);
			long unexpectedFailures = db.count("SELECT count(*) FROM jobs WHERE status = 'failed'") - failedCutOff;
			long handedBack = db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'HANDED_BACK'");
			long handedBackRunning = db.count("SELECT count(*) FROM job_events WHERE event = 'HANDED_BACK' "
					+ "AND (detail IS NULL OR detail NOT LIKE 'claimed ahead%')");
			long leaseRecoveries = db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'LEASE_EXPIRED'");
			long attempts = db.count("SELECT count(*) FROM job_attempts");
			Map<Long, int[]> bodies = bodies(this.dir);
			Set<Long> charges = db.column("SELECT id FROM jobs WHERE type = 'charge'")
				.stream()
				.map((id) -> ((Number) id).longValue())
				.collect(Collectors.toSet());
			long chargeStartedTwice = charges.stream()
				.filter((id) -> bodies.containsKey(id) && bodies.get(id)[0] > 1)
				.count();
			long succeededWithoutBody = db.column("SELECT id FROM jobs WHERE status = 'succeeded'")
				.stream()
				.filter((id) -> {
					int[] counts = bodies.get(((Number) id).longValue());
					return counts == null || counts[1] == 0;
				})
				.count();
			List<String> violations = Invariants.violations(file);
			String summary = String.format(Locale.ROOT, "GRACEFUL jobs=%d enqueued=%d processes=%d started=%d "
					+ "threads=%d sigterms=%d sigtermsOnRunningBodies=%d shutdownTimeoutMs=%d lost=%d doubleSuccesses=%d "
					+ "nonRepeatableStartedTwice=%d unfinished=%d succeeded=%d failedCutOffNotRepeatable=%d "
					+ "unexpectedFailures=%d handedBack=%d handedBackRunning=%d leaseRecoveries=%d attempts=%d succeededWithoutHandler=%d "
					+ "badExits=%d invariantViolations=%d seconds=%.0f seed=%d", jobs, enqueued.get(), PROCESSES,
					logs.size(), THREADS, terms.get(), onRunningBodies.get(), SHUTDOWN_TIMEOUT, lost, doubleSuccesses,
					chargeStartedTwice, unfinished, succeeded, failedCutOff, unexpectedFailures, handedBack,
					handedBackRunning, leaseRecoveries, attempts, succeededWithoutBody, badExits.get(),
					violations.size(), (System.nanoTime() - began) / 1e9, SEED);
			System.out.println(summary);
			System.err.println(summary);
			Files.writeString(Path.of("target", "graceful-torture-summary.txt"), summary + System.lineSeparator());

			assertThat(violations).isEmpty();
			assertThat(jobs).isEqualTo(JOBS);
			assertThat(lost).isZero();
			assertThat(unfinished).isZero();
			assertThat(doubleSuccesses).isZero();
			assertThat(chargeStartedTwice).isZero();
			assertThat(unexpectedFailures).isZero();
			assertThat(leaseRecoveries).as("every stop wrote its outcomes: no lease left to expire").isZero();
			assertThat(succeededWithoutBody).isZero();
			assertThat(badExits.get()).isZero();
			if (TERMS > 0) {
				assertThat(terms.get()).isGreaterThanOrEqualTo(TERMS);
			}
			if (TERMS != 0) {
				// Also in the long run (-1: stops until the jobs are done).
				assertThat(onRunningBodies.get()).as("SIGTERMs sent while the victim ran a long body").isPositive();
				assertThat(handedBackRunning + failedCutOff)
					.as("running jobs cut off by a stop, handed back or failed as not repeatable: the stops hit "
							+ "running jobs")
					.isPositive();
			}
		}
	}

	private Process launch(Path file, Path marker, List<Path> logs) {
		Path log = this.dir.resolve("worker-" + logs.size() + ".log");
		logs.add(log);
		try {
			return GracefulTortureWorker.launch(file, THREADS, LEASE, SHUTDOWN_TIMEOUT, marker, log);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Half repeatable, half not; most quick, some long enough to be cut off by a stop.
	 */
	private static void enqueue(DefaultJobQueue queue, Random random, AtomicLong enqueued) {
		List<JobRequest> batch = new ArrayList<>();
		for (int i = 0; i < JOBS; i++) {
			String type = random.nextBoolean() ? "work" : "charge";
			int millis = (random.nextInt(10) < 7) ? random.nextInt(20) : 100 + random.nextInt(700);
			batch.add(JobRequest.of(type, millis));
			if (batch.size() == 100 || i == JOBS - 1) {
				enqueued.addAndGet(queue.enqueueAll(batch).size());
				batch.clear();
			}
		}
	}

	/**
	 * Every 1–3 s, sends SIGTERM to a random worker, waits for it to exit, and starts
	 * another. Before the signal it waits up to 10 s for the victim to start a body of at
	 * least {@link #LONG_BODY} ms, which the shutdown timeout then cuts off.
	 */
	private void terminate(Random random, List<Process> workers, TestDatabase db, Path file, Path marker,
			List<Path> logs, AtomicBoolean done, AtomicInteger terms, AtomicInteger onRunningBodies,
			AtomicInteger badExits) {
		try {
			while (!done.get() && (TERMS < 0 || terms.get() < TERMS)) {
				long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_000 + random.nextInt(2_000));
				while (!done.get() && System.nanoTime() - until < 0) {
					Thread.sleep(50);
				}
				if (done.get()) {
					return;
				}
				int victim = random.nextInt(workers.size());
				Process process = workers.get(victim);
				if (startsLongBody(process, db, done)) {
					onRunningBodies.incrementAndGet();
				}
				process.destroy();
				if (!process.waitFor(30, TimeUnit.SECONDS)) {
					process.destroyForcibly();
					badExits.incrementAndGet();
				}
				else if (process.exitValue() != 143 && process.exitValue() != 0) {
					badExits.incrementAndGet();
				}
				terms.incrementAndGet();
				workers.set(victim, launch(file, marker, logs));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Waits up to 10 s for the process to start a body of at least {@link #LONG_BODY} ms
	 * (a {@code start} line in its bodies file not seen before), polling every 20 ms.
	 */
	private boolean startsLongBody(Process process, TestDatabase db, AtomicBoolean done) throws InterruptedException {
		Path bodies = this.dir.resolve("bodies-" + process.pid() + ".txt");
		Set<String> seen = new HashSet<>(startedBodies(bodies));
		long aim = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!done.get() && System.nanoTime() - aim < 0) {
			for (String id : startedBodies(bodies)) {
				if (seen.add(id) && db.count("SELECT count(*) FROM jobs WHERE id = ? AND CAST(payload AS INTEGER) >= ?",
						Long.parseLong(id), LONG_BODY) > 0) {
					return true;
				}
			}
			Thread.sleep(20);
		}
		return false;
	}

	/** The ids of the bodies a worker's file says started. */
	private static List<String> startedBodies(Path bodies) {
		try {
			if (!Files.exists(bodies)) {
				return List.of();
			}
			return Files.readAllLines(bodies)
				.stream()
				.filter((line) -> line.startsWith("start "))
				.map((line) -> line.substring("start ".length()).strip())
				.filter((id) -> !id.isEmpty())
				.toList();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Per job: how many bodies started ({@code [0]}) and ended ({@code [1]}), from the
	 * workers' files.
	 */
	private static Map<Long, int[]> bodies(Path dir) throws IOException {
		Map<Long, int[]> bodies = new HashMap<>();
		try (Stream<Path> files = Files.list(dir)) {
			for (Path file : files.filter((f) -> f.getFileName().toString().startsWith("bodies-")).toList()) {
				for (String line : Files.readAllLines(file)) {
					String[] parts = line.strip().split(" ");
					if (parts.length == 2) {
						int[] counts = bodies.computeIfAbsent(Long.parseLong(parts[1]), (id) -> new int[2]);
						counts["start".equals(parts[0]) ? 0 : 1]++;
					}
				}
			}
		}
		return bodies;
	}

}
