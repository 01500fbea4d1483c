package dev.jobqueue.testing.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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
 * The process torture test, on any store: worker JVMs ({@link TortureWorker}) on one
 * database, jobs of mixed types enqueued while they run (fast, slow, long, flaky,
 * heartbeat, doomed, chains continued by their handlers, fan-outs with a join), and a
 * chaos loop that signals a random worker every few seconds, once it runs a long job, and
 * starts a new one in its place. Run twice: with SIGKILL, and with SIGTERM (graceful
 * shutdown with a short timeout: long jobs are cut off and handed back, no job waits for
 * its lease).
 * <p>
 * At the end the database must show every job final, none lost, none succeeded twice,
 * every chain step created once, every join run after its children, the
 * {@link QueueInvariants}; the handler bodies' own records must show every succeeded
 * job's body ran to its end; every JVM's exit is checked (137 after SIGKILL, 143 after
 * SIGTERM, 0 when it finished by itself); and the signals must have hit running jobs
 * (lease recoveries after SIGKILL, hand-backs and cut-offs after SIGTERM). Prints one
 * {@code TORTURE ...} line per run, also appended to {@code target/torture-summary.txt}.
 * <p>
 * A store's torture test is a subclass naming its {@link TortureStore}. CI size by
 * default; knobs (system properties): {@code torture.jobs}, {@code torture.processes},
 * {@code torture.threads}, {@code torture.kills} (-1: keep signalling until the jobs are
 * done), {@code torture.lease} and {@code torture.shutdownTimeout} (ms),
 * {@code torture.seed}.
 */
public abstract class TortureHarness {

	static final int JOBS = Integer.getInteger("torture.jobs", 3_000);

	static final int PROCESSES = Integer.getInteger("torture.processes", 3);

	static final int THREADS = Integer.getInteger("torture.threads", 4);

	static final int KILLS = Integer.getInteger("torture.kills", 3);

	static final long LEASE = Long.getLong("torture.lease", 2_000);

	static final long SHUTDOWN_TIMEOUT = Long.getLong("torture.shutdownTimeout", 300);

	static final long SEED = Long.getLong("torture.seed", 7);

	/**
	 * A fan-out of this many fast children and a join goes in after every so many jobs.
	 */
	static final int FAN_OUT_EVERY = 500;

	static final int FAN_OUT_CHILDREN = 50;

	@TempDir
	Path dir;

	/** The store under test. */
	protected abstract TortureStore store();

	@Test
	void workersKilledAtRandomLoseNoJobAndRunNoneTwice() throws Exception {
		Outcome outcome = torture(Signal.KILL);
		assertThat(outcome.leaseRecoveries).as("runs taken back from killed workers: the kills hit running jobs")
			.isPositive();
	}

	/**
	 * The same load with SIGTERM instead: each worker stops claiming, lets its running
	 * jobs finish or cuts them off and hands them back, and exits, so no job waits for
	 * its lease.
	 */
	@Test
	void workersStoppedGracefullyFinishOrHandBackTheirJobs() throws Exception {
		Outcome outcome = torture(Signal.TERM);
		assertThat(outcome.leaseRecoveries).as("lease recoveries after graceful stops").isZero();
		assertThat(outcome.handedBackRunning).as("running jobs cut off and handed back: the stops hit running jobs")
			.isPositive();
	}

	private record Outcome(long leaseRecoveries, long handedBackRunning) {
	}

	private Outcome torture(Signal signal) throws Exception {
		long began = System.nanoTime();
		TortureStore store = store();
		Path records = Files.createDirectory(this.dir.resolve("records"));
		Path marker = this.dir.resolve("enqueue-done");
		try (StoreFixture db = store.create(this.dir);
				WorkerJvms jvms = new WorkerJvms(TortureWorker.class, "torture", this.dir, store, db, THREADS, LEASE,
						records, marker, SHUTDOWN_TIMEOUT)) {
			DefaultJobQueue queue = new DefaultJobQueue(db.store(), db.admin(), WorkerHarness.CODEC,
					new HandlerRegistry(), Clock.systemUTC(), new EnqueueLimits(10, 1 << 20), null);
			List<ChildJvm> workers = new CopyOnWriteArrayList<>();
			for (int i = 0; i < PROCESSES; i++) {
				workers.add(jvms.launch());
			}
			Expected expected = new Expected();
			Thread enqueuer = new Thread(() -> enqueue(queue, expected), "torture-enqueuer");
			enqueuer.start();
			// Aim at a running job: signal a worker only while it runs a long one.
			Chaos chaos = new Chaos("torture-chaos", new Random(SEED), workers, jvms, signal, KILLS,
					(workerId) -> db.count(
							"SELECT count(*) FROM jobs WHERE status = 'running' AND type = 'long' AND worker_id = ?",
							workerId) > 0)
				.start();

			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120 + JOBS / 25);
			enqueuer.join(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
			while (System.nanoTime() - deadline < 0 && (enqueuer.isAlive()
					|| db.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')") > 0
					|| (KILLS >= 0 && chaos.signals() < KILLS))) {
				Thread.sleep(250);
			}
			chaos.stop();
			Files.writeString(marker, "done");
			int badExits = chaos.badExits() + WorkerJvms.awaitFinished(workers);

			long jobs = db.count("SELECT count(*) FROM jobs");
			long unfinished = db.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')");
			long lost = expected.enqueued.get() + expected.continuations.get()
					- db.count("SELECT count(*) FROM jobs WHERE status IN ('succeeded', 'failed', 'cancelled')");
			long duplicated = db.count("SELECT count(*) FROM (SELECT job_id FROM job_attempts "
					+ "WHERE outcome = 'SUCCEEDED' GROUP BY job_id HAVING count(*) > 1) twice");
			long failed = db.count("SELECT count(*) FROM jobs WHERE status = 'failed'");
			long unexpectedFailures = db
				.count("SELECT count(*) FROM jobs WHERE status = 'failed' AND type != 'doomed'");
			long doomedSucceeded = db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded' AND type = 'doomed'");
			long attempts = db.count("SELECT count(*) FROM job_attempts");
			long recovered = db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'LEASE_EXPIRED'");
			long handedBack = db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'HANDED_BACK'");
			long handedBackRunning = db.count("SELECT count(*) FROM job_events WHERE event = 'HANDED_BACK' "
					+ "AND (detail IS NULL OR detail NOT LIKE 'claimed ahead%')");
			long openAttempts = db.count("SELECT count(*) FROM job_attempts WHERE outcome IS NULL");
			long lockErrorsRecorded = db
				.count("SELECT count(*) FROM job_attempts WHERE error_code LIKE '%JobQueueException%' "
						+ "OR error_detail LIKE '%SQLITE_BUSY%' OR error_detail LIKE '%locked%'");
			// A chain enqueued with k has its last step (payload 0) at index k: a step
			// lost to a kill leaves a chain without it, one created twice shows as two
			// jobs at one index.
			long chainSteps = db.count("SELECT count(*) FROM jobs WHERE type = 'chain'");
			long lostSteps = db.count("SELECT count(*) FROM jobs h WHERE h.type = 'chain' AND h.chain_index = 0 "
					+ "AND NOT EXISTS (SELECT 1 FROM jobs s WHERE s.chain_id = h.id AND s.payload = '0' "
					+ "AND s.chain_index = CAST(h.payload AS INTEGER))");
			long duplicatedSteps = db.count("SELECT count(*) FROM (SELECT chain_id, chain_index FROM jobs "
					+ "WHERE type = 'chain' GROUP BY chain_id, chain_index HAVING count(*) > 1) twice");
			long joins = db.count("SELECT count(*) FROM jobs WHERE type = 'join'");
			long earlyJoins = db
				.count("SELECT count(DISTINCT j.id) FROM jobs j JOIN job_dependencies d ON d.job_id = j.id "
						+ "JOIN jobs c ON c.id = d.depends_on JOIN job_attempts a ON a.job_id = j.id "
						+ "WHERE j.type = 'join' AND (c.finished_at IS NULL OR c.finished_at > a.started_at)");
			long joinsMetTwice = db.count("SELECT count(*) FROM (SELECT job_id FROM job_events "
					+ "WHERE event = 'DEPENDENCIES_MET' GROUP BY job_id HAVING count(*) > 1) twice");
			Map<Long, Integer> completed = HandlerRuns.read(records, "completed");
			long bodiesTwice = completed.values().stream().filter((runs) -> runs > 1).count();
			long succeededWithoutBody = db.column("SELECT id FROM jobs WHERE status = 'succeeded'")
				.stream()
				.filter((id) -> !completed.containsKey(((Number) id).longValue()))
				.count();
			long loopFailures = jvms.loopFailures();
			List<String> violations;
			try (Connection connection = store.connect(db)) {
				violations = QueueInvariants.violations(connection, "");
			}
			String summary = String.format(Locale.ROOT, "TORTURE store=%s signal=%s jobs=%d enqueued=%d processes=%d "
					+ "started=%d threads=%d signals=%d signalsOnRunningJobs=%d lost=%d duplicated=%d unfinished=%d "
					+ "failed=%d (expected %d) unexpectedFailures=%d attempts=%d leaseRecoveries=%d handedBack=%d "
					+ "handedBackRunning=%d handlerBodiesRunTwice=%d succeededWithoutHandler=%d openAttempts=%d "
					+ "lockErrorsInJobs=%d enqueueErrors=%d loopFailures=%d badExits=%d invariantViolations=%d "
					+ "chains=%d chainSteps=%d lostSteps=%d duplicatedSteps=%d joins=%d earlyJoins=%d "
					+ "joinsMetTwice=%d seconds=%.0f seed=%d", getClass().getSimpleName(), signal, jobs,
					expected.enqueued.get(), PROCESSES, jvms.launchedCount(), THREADS, chaos.signals(),
					chaos.onBusyWorkers(), lost, duplicated, unfinished, failed, expected.failures.get(),
					unexpectedFailures, attempts, recovered, handedBack, handedBackRunning, bodiesTwice,
					succeededWithoutBody, openAttempts, lockErrorsRecorded, expected.errors.get(), loopFailures,
					badExits, violations.size(), expected.chains.get(), chainSteps, lostSteps, duplicatedSteps, joins,
					earlyJoins, joinsMetTwice, (System.nanoTime() - began) / 1e9, SEED);
			TortureReport.print(summary, "torture-summary.txt");

			assertThat(violations).as("invariants").isEmpty();
			assertThat(expected.enqueued.get()).isEqualTo(JOBS + (JOBS / FAN_OUT_EVERY) * (FAN_OUT_CHILDREN + 1L));
			assertThat(jobs).isEqualTo(expected.enqueued.get() + expected.continuations.get());
			assertThat(chainSteps).isEqualTo(expected.chains.get() + expected.continuations.get());
			assertThat(lostSteps).isZero();
			assertThat(duplicatedSteps).isZero();
			assertThat(joins).isEqualTo(JOBS / FAN_OUT_EVERY);
			assertThat(earlyJoins).isZero();
			assertThat(joinsMetTwice).isZero();
			assertThat(unfinished).isZero();
			assertThat(lost).isZero();
			assertThat(duplicated).isZero();
			assertThat(openAttempts).isZero();
			assertThat(unexpectedFailures).isZero();
			assertThat(doomedSucceeded).isZero();
			assertThat(failed).isEqualTo(expected.failures.get());
			assertThat(succeededWithoutBody).as("every succeeded job's handler ran to its end").isZero();
			assertThat(bodiesTwice).as("a handler body completes twice only when a signal lost its outcome")
				.isLessThanOrEqualTo(recovered + handedBack);
			assertThat(expected.errors.get()).as("enqueue errors").isZero();
			assertThat(lockErrorsRecorded).isZero();
			assertThat(loopFailures).isZero();
			assertThat(badExits).as("JVMs that did not exit as expected (see the logs above)").isZero();
			if (KILLS > 0) {
				assertThat(chaos.signals()).isGreaterThanOrEqualTo(KILLS);
				assertThat(chaos.onBusyWorkers()).as("signals sent while the victim ran a long job").isPositive();
			}
			return new Outcome(recovered, handedBackRunning);
		}
	}

	/** What the enqueuer put in, and so what the database must show at the end. */
	private static final class Expected {

		final AtomicLong enqueued = new AtomicLong();

		final AtomicLong errors = new AtomicLong();

		final AtomicInteger failures = new AtomicInteger();

		final AtomicLong continuations = new AtomicLong();

		final AtomicLong chains = new AtomicLong();

	}

	/**
	 * Enqueues the jobs in batches while the workers run; an error is counted, and the
	 * batch tried again.
	 */
	private static void enqueue(DefaultJobQueue queue, Expected expected) {
		Random random = new Random(SEED + 1);
		List<JobRequest> batch = new ArrayList<>();
		for (int i = 0; i < JOBS; i++) {
			int roll = random.nextInt(1000);
			if (roll < 780) {
				batch.add(JobRequest.of("fast", i));
			}
			else if (roll < 860) {
				batch.add(JobRequest.of("slow", 10 + random.nextInt(90)));
			}
			else if (roll < 880) {
				batch.add(JobRequest.of("long", 1_000 + random.nextInt(1_000)));
			}
			else if (roll < 940) {
				batch.add(JobRequest.of("flaky", 1 + random.nextInt(2)));
			}
			else if (roll < 943) {
				batch.add(JobRequest.of("heartbeat", 5 + random.nextInt(4)));
			}
			else if (roll < 983) {
				int steps = 1 + random.nextInt(4);
				batch.add(JobRequest.of("chain", steps));
				expected.continuations.addAndGet(steps);
				expected.chains.incrementAndGet();
			}
			else {
				batch.add(JobRequest.of("doomed", i).maxAttempts(2));
				expected.failures.incrementAndGet();
			}
			if ((i + 1) % FAN_OUT_EVERY == 0) {
				List<JobRequest> children = new ArrayList<>();
				for (int c = 0; c < FAN_OUT_CHILDREN; c++) {
					children.add(JobRequest.of("fast", c));
				}
				while (true) {
					try {
						queue.enqueueFanOut(children, JobRequest.of("join", i));
						break;
					}
					catch (RuntimeException ex) {
						expected.errors.incrementAndGet();
						ex.printStackTrace();
					}
				}
				expected.enqueued.addAndGet(FAN_OUT_CHILDREN + 1);
			}
			if (batch.size() == 100 || i == JOBS - 1) {
				while (true) {
					try {
						expected.enqueued.addAndGet(queue.enqueueAll(batch).size());
						break;
					}
					catch (RuntimeException ex) {
						expected.errors.incrementAndGet();
						ex.printStackTrace();
					}
				}
				batch.clear();
			}
		}
	}

}
