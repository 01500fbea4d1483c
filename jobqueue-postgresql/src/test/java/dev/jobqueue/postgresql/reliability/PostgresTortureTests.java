package dev.jobqueue.postgresql.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.jackson.JacksonPayloadCodec;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The process torture test on PostgreSQL: worker JVMs on one database, jobs enqueued
 * while they run, and a SIGKILL of a random worker every few seconds (a new one takes its
 * place). At the end every job is final, none lost, none with two succeeded attempts, no
 * attempt left open. Some jobs are chains whose handler continues them
 * ({@code continueWith}): every step exists exactly once however the kills fell between a
 * handler's end and its outcome's write. Some are fan-outs: each join runs once, after
 * all its children finished. Prints one {@code TORTURE-PG ...} line.
 * <p>
 * Run twice: with SIGKILL, and with SIGTERM (graceful shutdown: no job may wait for its
 * lease). CI size by default (5,000 jobs, 3 kills). The long run:
 * {@code ./mvnw -B -pl jobqueue-postgresql -am
 * -Ptorture-postgresql test} (100,000 jobs, 3 JVMs x 4 threads, kills until the jobs are
 * done).
 */
@PostgresTest
@Tag("long")
class PostgresTortureTests {

	static final int JOBS = Integer.getInteger("torture.jobs", 5_000);

	static final int PROCESSES = Integer.getInteger("torture.processes", 3);

	static final int THREADS = Integer.getInteger("torture.threads", 4);

	static final int KILLS = Integer.getInteger("torture.kills", 3);

	static final long LEASE = Long.getLong("torture.lease", 2_000);

	static final long SEED = Long.getLong("torture.seed", 7);

	@TempDir
	Path dir;

	@Test
	void workersKilledAtRandomLoseNoJobAndSucceedNoneTwice() throws Exception {
		torture("KILL");
	}

	/**
	 * The same load with SIGTERM instead: each worker stops claiming, lets its running
	 * jobs finish (or hands them back) and exits, so no job waits for its lease to
	 * expire.
	 */
	@Test
	void workersStoppedGracefullyFinishOrHandBackTheirJobs() throws Exception {
		long recoveries = torture("TERM");
		assertThat(recoveries).isZero();
	}

	/**
	 * @return the lease recoveries
	 */
	private long torture(String signal) throws Exception {
		long started = System.nanoTime();
		Path marker = this.dir.resolve("enqueue-done");
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			DefaultJobQueue queue = new DefaultJobQueue(db.storage().jobs(), db.storage().admin(),
					new JacksonPayloadCodec(JsonMapper.builder().build()), new HandlerRegistry(), Clock.systemUTC(),
					new EnqueueLimits(10, 1 << 20), null);
			List<Process> workers = new CopyOnWriteArrayList<>();
			AtomicInteger launched = new AtomicInteger();
			for (int i = 0; i < PROCESSES; i++) {
				workers.add(launch(db.url(), marker, launched));
			}
			AtomicLong enqueued = new AtomicLong();
			AtomicLong continuations = new AtomicLong();
			AtomicLong chains = new AtomicLong();
			Thread enqueuer = new Thread(() -> enqueue(queue, enqueued, continuations, chains), "torture-enqueuer");
			enqueuer.start();
			AtomicBoolean done = new AtomicBoolean();
			AtomicInteger kills = new AtomicInteger();
			Thread chaos = new Thread(
					() -> chaos(new Random(SEED), signal, workers, db.url(), marker, launched, done, kills));
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
			int badExits = 0;
			for (Process worker : workers) {
				if (!worker.waitFor(60, TimeUnit.SECONDS)) {
					worker.destroyForcibly();
					badExits++;
				}
				else if (worker.exitValue() != 0) {
					badExits++;
				}
			}
			long jobs = db.count("SELECT count(*) FROM jobs");
			long unfinished = db.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')");
			long lost = enqueued.get() + continuations.get()
					- db.count("SELECT count(*) FROM jobs WHERE status IN ('succeeded', 'failed', 'cancelled')");
			long duplicated = db
				.count("SELECT count(*) FROM (SELECT job_id FROM job_attempts WHERE outcome = 'SUCCEEDED' "
						+ "GROUP BY job_id HAVING count(*) > 1) twice");
			long failed = db.count("SELECT count(*) FROM jobs WHERE status = 'failed'");
			long recovered = db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'LEASE_EXPIRED'");
			long openAttempts = db.count(
					"SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id " + "WHERE a.outcome IS NULL");
			// A chain enqueued with k has its last step (payload 0) at index k: a step
			// lost
			// to a kill leaves a chain without it, one created twice shows as two jobs at
			// one index.
			long chainSteps = db.count("SELECT count(*) FROM jobs WHERE type = 'chain'");
			long lostSteps = db.count("SELECT count(*) FROM jobs h WHERE h.type = 'chain' AND h.chain_index = 0 "
					+ "AND NOT EXISTS (SELECT 1 FROM jobs s WHERE s.chain_id = h.id AND s.payload = '0' "
					+ "AND s.chain_index = h.payload::int)");
			long duplicatedSteps = db.count("SELECT count(*) FROM (SELECT chain_id, chain_index FROM jobs "
					+ "WHERE type = 'chain' GROUP BY chain_id, chain_index HAVING count(*) > 1) twice");
			long joins = db.count("SELECT count(*) FROM jobs WHERE type = 'join'");
			long earlyJoins = db
				.count("SELECT count(DISTINCT j.id) FROM jobs j JOIN job_dependencies d ON d.job_id = j.id "
						+ "JOIN jobs c ON c.id = d.depends_on JOIN job_attempts a ON a.job_id = j.id "
						+ "WHERE j.type = 'join' AND (c.finished_at IS NULL OR c.finished_at > a.started_at)");
			long joinsMetTwice = db.count("SELECT count(*) FROM (SELECT job_id FROM job_events "
					+ "WHERE event = 'DEPENDENCIES_MET' GROUP BY job_id HAVING count(*) > 1) twice");
			String summary = String.format(java.util.Locale.ROOT,
					"TORTURE-PG signal=%s jobs=%d enqueued=%d processes=%d started=%d threads=%d kills=%d lost=%d duplicated=%d "
							+ "unfinished=%d failed=%d leaseRecoveries=%d openAttempts=%d badExits=%d chains=%d "
							+ "chainSteps=%d lostSteps=%d duplicatedSteps=%d joins=%d earlyJoins=%d joinsMetTwice=%d "
							+ "seconds=%.0f",
					signal, jobs, enqueued.get(), PROCESSES, launched.get(), THREADS, kills.get(), lost, duplicated,
					unfinished, failed, recovered, openAttempts, badExits, chains.get(), chainSteps, lostSteps,
					duplicatedSteps, joins, earlyJoins, joinsMetTwice, (System.nanoTime() - started) / 1e9);
			System.out.println(summary);
			System.err.println(summary);
			Files.writeString(Path.of("target", "torture-postgresql-summary.txt"), summary + System.lineSeparator(),
					StandardOpenOption.CREATE, StandardOpenOption.APPEND);
			assertThat(jobs).isEqualTo(enqueued.get() + continuations.get());
			assertThat(enqueued.get()).isEqualTo(JOBS + (JOBS / FAN_OUT_EVERY) * (FAN_OUT_CHILDREN + 1L));
			assertThat(chainSteps).isEqualTo(chains.get() + continuations.get());
			assertThat(lostSteps).isZero();
			assertThat(duplicatedSteps).isZero();
			assertThat(joins).isEqualTo(JOBS / FAN_OUT_EVERY);
			assertThat(earlyJoins).isZero();
			assertThat(joinsMetTwice).isZero();
			assertThat(unfinished).isZero();
			assertThat(lost).isZero();
			assertThat(duplicated).isZero();
			assertThat(failed).isZero();
			assertThat(openAttempts).isZero();
			assertThat(badExits).isZero();
			if (KILLS > 0) {
				assertThat(kills.get()).isGreaterThanOrEqualTo(KILLS);
			}
			return recovered;
		}
	}

	private Process launch(String url, Path marker, AtomicInteger launched) {
		Path log = this.dir.resolve("worker-" + launched.getAndIncrement() + ".log");
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp",
				System.getProperty("java.class.path"), PostgresTortureWorker.class.getName(), url,
				String.valueOf(THREADS), String.valueOf(LEASE), marker.toString());
		builder.redirectErrorStream(true);
		builder.redirectOutput(log.toFile());
		try {
			return builder.start();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A fan-out of this many fast children and a join goes in after every so many jobs.
	 */
	static final int FAN_OUT_EVERY = 500;

	static final int FAN_OUT_CHILDREN = 50;

	private static void enqueue(DefaultJobQueue queue, AtomicLong enqueued, AtomicLong continuations,
			AtomicLong chains) {
		Random random = new Random(SEED + 1);
		List<JobRequest> batch = new ArrayList<>();
		for (int i = 0; i < JOBS; i++) {
			int roll = random.nextInt(100);
			if (roll < 80) {
				batch.add(JobRequest.of("fast", i));
			}
			else if (roll < 90) {
				batch.add(JobRequest.of("slow", 10 + random.nextInt(90)));
			}
			else if (roll < 95) {
				batch.add(JobRequest.of("flaky", 1 + random.nextInt(2)));
			}
			else {
				int steps = 1 + random.nextInt(4);
				batch.add(JobRequest.of("chain", steps));
				continuations.addAndGet(steps);
				chains.incrementAndGet();
			}
			if ((i + 1) % FAN_OUT_EVERY == 0) {
				List<JobRequest> children = new ArrayList<>();
				for (int c = 0; c < FAN_OUT_CHILDREN; c++) {
					children.add(JobRequest.of("fast", c));
				}
				queue.enqueueFanOut(children, JobRequest.of("join", i));
				enqueued.addAndGet(FAN_OUT_CHILDREN + 1);
			}
			if (batch.size() == 100 || i == JOBS - 1) {
				enqueued.addAndGet(queue.enqueueAll(batch).size());
				batch.clear();
			}
		}
	}

	private void chaos(Random random, String signal, List<Process> workers, String url, Path marker,
			AtomicInteger launched, AtomicBoolean done, AtomicInteger kills) {
		try {
			while (!done.get() && (KILLS < 0 || kills.get() < KILLS)) {
				long until = System.currentTimeMillis() + 2_000 + random.nextInt(3_000);
				while (!done.get() && System.currentTimeMillis() < until) {
					Thread.sleep(50);
				}
				if (done.get()) {
					return;
				}
				int victim = random.nextInt(workers.size());
				Process process = workers.get(victim);
				new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).start().waitFor();
				// A graceful stop waits for the running jobs (at most the worker's 5 s
				// shutdown timeout).
				process.waitFor(30, TimeUnit.SECONDS);
				kills.incrementAndGet();
				workers.set(victim, launch(url, marker, launched));
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
