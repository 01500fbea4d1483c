package dev.jobqueue.testing.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

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
import dev.jobqueue.testing.torture.WorkerJvms.Signal;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The durable steps torture, on any store: worker JVMs ({@link StepsTortureWorker}) that
 * share the database with an application table run jobs of five steps each, one of them a
 * transactional step that inserts a row into that table; a chaos loop SIGKILLs a random
 * worker every few seconds and starts a new one in its place.
 * <p>
 * At the end every job must have succeeded with exactly five recorded steps and exactly
 * one application row (0 duplicates, 0 missing: the transactional step's row and its
 * record commit together); the {@link QueueInvariants} must hold and every JVM exit as
 * expected. Each run of a step's body gives a value of its own (a random UUID) and
 * records it ({@link HandlerRuns}), so the results tell a replay from a re-run: each
 * job's result must carry, for every step, the value its record keeps, a value one of the
 * bodies' runs gave, and the ledger's row the same value as the ledger's record. A step
 * that ran again instead of replaying its record fails this. An external step runs again
 * only when a kill fell between the start of its work and its record, so at most one step
 * per handler thread of each killed JVM; the count is reported. The chaos loop aims at
 * workers inside the transactional step (a marker file, see {@link StepsTortureWorker}),
 * and markers left behind by killed workers must show that at least one kill landed
 * inside it. Prints one {@code STEPS TORTURE ...} line, also appended to
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
		Path inLedger = Files.createDirectory(records.resolve(StepsTortureWorker.IN_LEDGER));
		try (StoreFixture db = store.create(this.dir);
				WorkerJvms jvms = new WorkerJvms(StepsTortureWorker.class, "steps", this.dir, store, db, THREADS, LEASE,
						records, marker)) {
			db.execute("CREATE TABLE step_ledger (job_id BIGINT NOT NULL, step VARCHAR(100) NOT NULL)");
			DefaultJobQueue queue = new DefaultJobQueue(db.store(), db.admin(), WorkerHarness.CODEC,
					new HandlerRegistry(), Clock.systemUTC(), new EnqueueLimits(50, 1 << 20), null);
			List<ChildJvm> workers = new CopyOnWriteArrayList<>();
			for (int i = 0; i < PROCESSES; i++) {
				workers.add(jvms.launch());
			}
			AtomicInteger enqueueErrors = new AtomicInteger();
			Thread enqueuer = new Thread(() -> enqueue(queue, enqueueErrors), "steps-torture-enqueuer");
			enqueuer.start();
			// SIGKILLs until the jobs are done, each while the victim is inside a
			// transactional step.
			Chaos chaos = new Chaos("steps-torture-chaos", new Random(SEED), workers, jvms, Signal.KILL, -1,
					(workerId) -> inLedger(inLedger, workerId) > 0)
				.start();

			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120 + JOBS / 20);
			enqueuer.join(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
			while (System.nanoTime() - deadline < 0 && (enqueuer.isAlive()
					|| db.count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')") > 0
					|| chaos.signals() < KILLS)) {
				Thread.sleep(250);
			}
			chaos.stop();
			Files.writeString(marker, "done");
			int badExits = chaos.badExits() + WorkerJvms.awaitFinished(workers);

			long jobs = db.count("SELECT count(*) FROM jobs");
			long succeeded = db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'");
			long unfinished = db.count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')");
			long wrongResults = wrongResults(db, records);
			long killsInsideTheTransactionalStep = inLedger(inLedger, "");
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
							+ "transactionalBodiesRolledBackAndRerun=%d killsInsideTheTransactionalStep=%d "
							+ "enqueueErrors=%d badExits=%d invariantViolations=%d seconds=%.0f seed=%d",
					getClass().getSimpleName(), jobs, PROCESSES, jvms.launchedCount(), THREADS, chaos.signals(),
					succeeded, unfinished, wrongResults, stepRows, jobsWithoutFiveSteps, ledgerRows, duplicateRows,
					missingRows, recoveries, externalBodies, rerunExternal, perStep.toString().strip(),
					ledgerBodiesRerun, killsInsideTheTransactionalStep, enqueueErrors.get(), badExits,
					violations.size(), (System.nanoTime() - began) / 1e9, SEED);
			TortureReport.print(summary, "torture-summary.txt");

			assertThat(violations).as("invariants").isEmpty();
			assertThat(jobs).isEqualTo(JOBS);
			assertThat(unfinished).isZero();
			assertThat(succeeded).isEqualTo(JOBS);
			assertThat(wrongResults)
				.as("results whose steps' values are not the ones their records keep (a step run again instead of "
						+ "replayed), or not one its body gave, or a ledger row whose value is not its record's")
				.isZero();
			assertThat(stepRows).isEqualTo(5L * JOBS);
			assertThat(jobsWithoutFiveSteps).isZero();
			assertThat(duplicateRows).as("transactional steps whose row was written twice").isZero();
			assertThat(missingRows).as("transactional steps whose row is missing").isZero();
			assertThat(ledgerRows).isEqualTo(JOBS);
			assertThat(rerunExternal)
				.as("an external step runs again only when a kill fell in its window: at most one step per handler "
						+ "thread of each killed JVM")
				.isLessThanOrEqualTo((long) chaos.signals() * THREADS);
			assertThat(enqueueErrors.get()).isZero();
			assertThat(badExits).as("JVMs that did not exit as expected (see the logs above)").isZero();
			assertThat(chaos.signals()).isGreaterThanOrEqualTo(KILLS);
			assertThat(recoveries).as("runs taken back from killed workers: the kills hit running jobs").isPositive();
			assertThat(killsInsideTheTransactionalStep)
				.as("kills that landed inside a transactional step or just after its commit (markers the killed "
						+ "workers left)")
				.isPositive();
			assertThat(ledgerBodiesRerun)
				.as("transactional steps whose body ran again: a kill landed inside their transaction, which rolled back")
				.isPositive();
		}
	}

	/** Runs beyond the first, over all jobs. */
	private static long reruns(Map<Long, Integer> runs) {
		return runs.values().stream().mapToLong((count) -> count - 1L).sum();
	}

	/**
	 * Jobs whose result is not made of the values their steps' records keep, or with a
	 * recorded value none of the step's bodies gave, or whose ledger row holds another
	 * value than the ledger's record.
	 */
	private static long wrongResults(StoreFixture db, Path records) {
		Map<String, Map<Long, List<String>>> given = new HashMap<>();
		for (String step : StepsTortureWorker.STEPS) {
			given.put(step, HandlerRuns.values(records, "step-" + step));
		}
		Map<Long, Map<String, String>> recorded = new HashMap<>();
		List<Object> stepJobs = db.column("SELECT job_id FROM job_steps ORDER BY job_id, name");
		List<Object> stepNames = db.column("SELECT name FROM job_steps ORDER BY job_id, name");
		List<Object> stepResults = db.column("SELECT result FROM job_steps ORDER BY job_id, name");
		for (int i = 0; i < stepJobs.size(); i++) {
			recorded.computeIfAbsent(((Number) stepJobs.get(i)).longValue(), (id) -> new HashMap<>())
				.put(stepNames.get(i).toString(), String.valueOf(stepResults.get(i)));
		}
		Map<Long, String> ledgerRows = new HashMap<>();
		List<Object> ledgerJobs = db.column("SELECT job_id FROM step_ledger ORDER BY job_id");
		List<Object> ledgerValues = db.column("SELECT step FROM step_ledger ORDER BY job_id");
		for (int i = 0; i < ledgerJobs.size(); i++) {
			ledgerRows.put(((Number) ledgerJobs.get(i)).longValue(), ledgerValues.get(i).toString());
		}
		List<Object> ids = db.column("SELECT id FROM jobs ORDER BY id");
		List<Object> results = db.column("SELECT result FROM jobs ORDER BY id");
		long wrong = 0;
		for (int i = 0; i < ids.size(); i++) {
			long id = ((Number) ids.get(i)).longValue();
			Map<String, String> steps = recorded.getOrDefault(id, Map.of());
			List<String> values = new ArrayList<>();
			boolean right = true;
			for (String step : StepsTortureWorker.STEPS) {
				String json = steps.get(step);
				String value = (json != null && json.length() > 2) ? json.substring(1, json.length() - 1) : "";
				values.add(value);
				right &= given.get(step).getOrDefault(id, List.of()).contains(value);
			}
			right &= values.get(2).equals(ledgerRows.get(id));
			right &= ("\"" + StepsTortureWorker.result(values) + "\"").equals(results.get(i));
			if (!right) {
				wrong++;
			}
		}
		return wrong;
	}

	/**
	 * The markers of runs inside a transactional step whose name starts with
	 * {@code prefix} (a worker's id and a dash; {@code ""}: all).
	 */
	private static long inLedger(Path inLedger, String prefix) {
		String start = prefix.isEmpty() ? "" : prefix + "-";
		try (Stream<Path> markers = Files.list(inLedger)) {
			return markers.filter((marker) -> marker.getFileName().toString().startsWith(start)).count();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
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

}
