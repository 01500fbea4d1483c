package dev.jobqueue.testing.torture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.testing.ChildJvm;
import dev.jobqueue.testing.HandlerRuns;
import dev.jobqueue.testing.QueueInvariants;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The durable steps torture, on any store: worker JVMs ({@link StepsTortureWorker}) that
 * share the database with an application table run jobs of five steps each, one of them a
 * transactional step that inserts a row into that table; a chaos loop SIGKILLs a random
 * worker every few seconds and starts a new one in its place.
 * <p>
 * At the end every job must have succeeded with the result its steps gave the first time
 * (a replayed result is the recorded one), with exactly five recorded steps and exactly
 * one application row (0 duplicates, 0 missing: the transactional step's row and its
 * record commit together); the {@link QueueInvariants} must hold and every JVM exit as
 * expected. The external steps' bodies record each run ({@link HandlerRuns}): an external
 * step runs again only when a kill fell between the start of its work and its record, so
 * at most one step per handler thread of each killed JVM; the count is reported. Prints
 * one {@code STEPS TORTURE ...} line, also appended to
 * {@code target/torture-summary.txt}.
 * <p>
 * CI size by default; knobs (system properties): {@code torture.steps.jobs},
 * {@code torture.processes}, {@code torture.threads}, {@code torture.lease} (ms),
 * {@code torture.seed}.
 */
public abstract class StepsTortureHarness {

	static final int JOBS = Integer.getInteger("torture.steps.jobs", 2_000);

	static final int PROCESSES = Integer.getInteger("torture.processes", 3);

	static final int THREADS = Integer.getInteger("torture.threads", 4);

	static final int KILLS = 3;

	static final long LEASE = Long.getLong("torture.lease", 2_000);

	static final long SEED = Long.getLong("torture.seed", 7);

	@TempDir
	Path dir;

	/** The store under test. */
	protected abstract TortureStore store();

	@Test
	void killedWorkersLeaveEveryTransactionalStepDoneOnceAndRerunOnlyExternalStepsInFlight() throws Exception {
		long began = System.nanoTime();
		TortureStore store = store();
		Path records = Files.createDirectory(this.dir.resolve("records"));
		Path marker = this.dir.resolve("enqueue-done");
		try (StoreFixture db = store.create(this.dir)) {
			db.execute("CREATE TABLE step_ledger (job_id BIGINT NOT NULL, step VARCHAR(100) NOT NULL)");
			DefaultJobQueue queue = new DefaultJobQueue(db.store(), db.admin(), WorkerHarness.CODEC,
					new HandlerRegistry(), Clock.systemUTC(), new EnqueueLimits(50, 1 << 20), null);
			List<ChildJvm> workers = new CopyOnWriteArrayList<>();
			List<ChildJvm> launched = new CopyOnWriteArrayList<>();
			for (int i = 0; i < PROCESSES; i++) {
				workers.add(launch(store, db, records, marker, launched));
			}
			AtomicInteger enqueueErrors = new AtomicInteger();
			Thread enqueuer = new Thread(() -> enqueue(queue, enqueueErrors), "steps-torture-enqueuer");
			enqueuer.start();
			AtomicBoolean done = new AtomicBoolean();
			AtomicInteger kills = new AtomicInteger();
			AtomicInteger badExits = new AtomicInteger();
			Thread chaos = new Thread(
					() -> chaos(new Random(SEED), workers, store, db, records, marker, launched, done, kills, badExits),
					"steps-torture-chaos");
			chaos.start();

			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120 + JOBS / 20);
			enqueuer.join(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
			while (System.nanoTime() - deadline < 0 && (enqueuer.isAlive()
					|| db.count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')") > 0
					|| kills.get() < KILLS)) {
				Thread.sleep(250);
			}
			done.set(true);
			chaos.join();
			Files.writeString(marker, "done");
			for (ChildJvm worker : workers) {
				int exit = worker.waitForExit(Duration.ofSeconds(60));
				if (exit != 0) {
					System.err.println("worker " + worker.pid() + " exited with " + exit + ":\n" + worker.output());
					badExits.incrementAndGet();
				}
			}

			long jobs = db.count("SELECT count(*) FROM jobs");
			long succeeded = db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'");
			long unfinished = db.count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')");
			long wrongResults = wrongResults(db);
			long stepRows = db.count("SELECT count(*) FROM job_steps");
			long jobsWithoutFiveSteps = db.count("SELECT count(*) FROM jobs j WHERE (SELECT count(*) FROM job_steps s "
					+ "WHERE s.job_id = j.id) <> 5");
			long ledgerRows = db.count("SELECT count(*) FROM step_ledger");
			long duplicateRows = db.count("SELECT count(*) FROM (SELECT job_id FROM step_ledger GROUP BY job_id "
					+ "HAVING count(*) > 1) twice");
			long missingRows = db.count("SELECT count(*) FROM jobs j WHERE NOT EXISTS "
					+ "(SELECT 1 FROM step_ledger l WHERE l.job_id = j.id)");
			long recoveries = db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'LEASE_EXPIRED'");
			long rerunExternal = 0;
			long externalBodies = 0;
			StringBuilder perStep = new StringBuilder();
			for (String step : StepsTortureWorker.EXTERNAL_STEPS) {
				Map<Long, Integer> bodies = HandlerRuns.read(records, "step-" + step);
				externalBodies += HandlerRuns.total(bodies);
				long rerun = reruns(bodies);
				rerunExternal += rerun;
				perStep.append(' ').append(step).append('=').append(rerun);
			}
			long ledgerBodiesRerun = reruns(HandlerRuns.read(records, "step-ledger"));
			List<String> violations;
			try (Connection connection = store.connect(db)) {
				violations = QueueInvariants.violations(connection, "");
			}
			String summary = String.format(Locale.ROOT,
					"STEPS TORTURE store=%s jobs=%d processes=%d started=%d "
							+ "threads=%d kills=%d succeeded=%d unfinished=%d wrongResults=%d stepRows=%d "
							+ "jobsWithoutFiveSteps=%d ledgerRows=%d duplicateLedgerRows=%d missingLedgerRows=%d "
							+ "leaseRecoveries=%d externalStepBodies=%d externalStepsRerun=%d (%s) "
							+ "transactionalBodiesRolledBackAndRerun=%d "
							+ "enqueueErrors=%d badExits=%d invariantViolations=%d seconds=%.0f seed=%d",
					getClass().getSimpleName(), jobs, PROCESSES, launched.size(), THREADS, kills.get(), succeeded,
					unfinished, wrongResults, stepRows, jobsWithoutFiveSteps, ledgerRows, duplicateRows, missingRows,
					recoveries, externalBodies, rerunExternal, perStep.toString().strip(), ledgerBodiesRerun,
					enqueueErrors.get(), badExits.get(), violations.size(), (System.nanoTime() - began) / 1e9, SEED);
			System.out.println(summary);
			System.err.println(summary);
			Files.createDirectories(Path.of("target"));
			Files.writeString(Path.of("target", "torture-summary.txt"), summary + System.lineSeparator(),
					StandardOpenOption.CREATE, StandardOpenOption.APPEND);

			assertThat(violations).as("invariants").isEmpty();
			assertThat(jobs).isEqualTo(JOBS);
			assertThat(unfinished).isZero();
			assertThat(succeeded).isEqualTo(JOBS);
			assertThat(wrongResults).as("results built from replayed steps differ from the first").isZero();
			assertThat(stepRows).isEqualTo(5L * JOBS);
			assertThat(jobsWithoutFiveSteps).isZero();
			assertThat(duplicateRows).as("transactional steps whose row was written twice").isZero();
			assertThat(missingRows).as("transactional steps whose row is missing").isZero();
			assertThat(ledgerRows).isEqualTo(JOBS);
			assertThat(rerunExternal)
				.as("an external step runs again only when a kill fell in its window: at most one step per handler "
						+ "thread of each killed JVM")
				.isLessThanOrEqualTo((long) kills.get() * THREADS);
			assertThat(enqueueErrors.get()).isZero();
			assertThat(badExits.get()).as("JVMs that did not exit as expected (see the logs above)").isZero();
			assertThat(kills.get()).isGreaterThanOrEqualTo(KILLS);
			assertThat(recoveries).as("runs taken back from killed workers: the kills hit running jobs").isPositive();
		}
	}

	/** Runs beyond the first, over all jobs. */
	private static long reruns(Map<Long, Integer> runs) {
		return runs.values().stream().mapToLong((count) -> count - 1L).sum();
	}

	private static long wrongResults(StoreFixture db) {
		List<Object> ids = db.column("SELECT id FROM jobs ORDER BY id");
		List<Object> payloads = db.column("SELECT payload FROM jobs ORDER BY id");
		List<Object> results = db.column("SELECT result FROM jobs ORDER BY id");
		long wrong = 0;
		for (int i = 0; i < ids.size(); i++) {
			String expected = "\"" + StepsTortureWorker.expectedResult(Long.parseLong(payloads.get(i).toString()))
					+ "\"";
			if (!expected.equals(results.get(i))) {
				wrong++;
			}
		}
		return wrong;
	}

	private ChildJvm launch(TortureStore store, StoreFixture db, Path records, Path marker, List<ChildJvm> launched) {
		String workerId = "steps-" + launched.size();
		ChildJvm worker = ChildJvm.start(StepsTortureWorker.class, this.dir.resolve(workerId + ".log"),
				store.getClass().getName(), store.location(db), workerId, THREADS, LEASE, records, marker);
		launched.add(worker);
		return worker;
	}

	/** Enqueues the jobs in batches of 100 while the workers run. */
	private static void enqueue(DefaultJobQueue queue, AtomicInteger errors) {
		List<JobRequest> batch = new ArrayList<>();
		for (int i = 0; i < JOBS; i++) {
			batch.add(JobRequest.of("steps", i).maxAttempts(50));
			if (batch.size() == 100 || i == JOBS - 1) {
				while (true) {
					try {
						queue.enqueueAll(batch);
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

	/**
	 * Every two to five seconds, SIGKILLs a random worker (once it runs a job), checks
	 * its exit, and starts a new one in its place; goes on until the jobs are done.
	 */
	private void chaos(Random random, List<ChildJvm> workers, TortureStore store, StoreFixture db, Path records,
			Path marker, List<ChildJvm> launched, AtomicBoolean done, AtomicInteger kills, AtomicInteger badExits) {
		try {
			while (!done.get()) {
				long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_000 + random.nextInt(3_000));
				while (!done.get() && System.nanoTime() - until < 0) {
					Thread.sleep(50);
				}
				if (done.get()) {
					return;
				}
				int victim = random.nextInt(workers.size());
				ChildJvm process = workers.get(victim);
				String workerId = "steps-" + launched.indexOf(process);
				long aim = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
				while (!done.get() && System.nanoTime() - aim < 0 && db
					.count("SELECT count(*) FROM jobs WHERE status = 'running' AND worker_id = ?", workerId) == 0) {
					Thread.sleep(10);
				}
				process.kill();
				int exit = process.waitForExit(Duration.ofSeconds(30));
				if (exit != ChildJvm.KILLED) {
					System.err.println("worker " + process.pid() + " exited with " + exit + " after SIGKILL, not "
							+ ChildJvm.KILLED + ":\n" + process.output());
					badExits.incrementAndGet();
				}
				kills.incrementAndGet();
				workers.set(victim, launch(store, db, records, marker, launched));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
