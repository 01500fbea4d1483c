package dev.jobqueue.testing.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.core.store.QueueInsights.Attempt;
import dev.jobqueue.testing.ChildJvm;
import dev.jobqueue.testing.QueueInvariants;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.WorkerHarness;
import dev.jobqueue.testing.torture.FlowChecks.Interval;
import dev.jobqueue.testing.torture.FlowRecords.Run;
import dev.jobqueue.testing.torture.WorkerJvms.Signal;

import static dev.jobqueue.testing.torture.FlowTortureWorker.FAIR;
import static dev.jobqueue.testing.torture.FlowTortureWorker.FAIR_PAIRS;
import static dev.jobqueue.testing.torture.FlowTortureWorker.LIMITS;
import static dev.jobqueue.testing.torture.FlowTortureWorker.ORDERED;
import static dev.jobqueue.testing.torture.FlowTortureWorker.PAIRS;
import static dev.jobqueue.testing.torture.FlowTortureWorker.RATED;
import static dev.jobqueue.testing.torture.FlowTortureWorker.SATURATED_RATED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Flow control across worker JVMs on one database, judged by the handlers' own records
 * ({@link FlowRecords}), not by the queue's bookkeeping: three JVMs
 * ({@link FlowTortureWorker}) with several worker threads each run, at once, ordered keys
 * (on 100 keys), keys with at most two running jobs, and a rate-limited type with a
 * tighter limit per key; once as they are (3,000 ordered jobs), once with SIGKILLs of one
 * worker mid-run (10,000 ordered jobs). Then a quiet key's single job, enqueued while a
 * busy key has 100,000 due, must start within one claim round.
 * <p>
 * What the records must show:
 * <ul>
 * <li>Per key, the most runs at one moment (a sweep over starts and ends) never above the
 * key's limit, and the limit reached.</li>
 * <li>Ordered keys: runs in enqueue order, each starting after the previous one let the
 * key go, every job run to its end.</li>
 * <li>Rate limits: no more starts in a window than the limit. The queue logs the
 * handler's start (it begins just after the worker records it; the claim holds the permit
 * until then), so the bodies' starts are counted in windows shortened by the largest
 * delay measured in the run from the attempt's claim time to the body's start
 * ({@code D}), but by no more than a quarter of the window, plus the 1 ms the stores
 * round times to: what the handler-side log bounds exactly is the worker's record of the
 * start, a moment before the body records its own. The queue's own claim times are
 * checked in full windows besides, and must reach the limit (else the test proved
 * nothing).</li>
 * <li>A killed run never writes its end. The queue holds its job's key until it takes the
 * job back after its lease, so such a run counts as holding its key until then (the
 * attempt's LEASE_EXPIRED end, and never before the JVM was seen dead): the next run of
 * the key must start after it. Every killed job's key goes on (every job ends).</li>
 * </ul>
 * <p>
 * A store's test is a subclass naming its {@link TortureStore}. Knobs (system
 * properties): {@code flow.processes}, {@code flow.threads}, {@code flow.orderedJobs}
 * (the run with kills), {@code flow.baselineOrderedJobs} (the run without),
 * {@code flow.orderedKeys}, {@code flow.kills}, {@code flow.busyJobs}, {@code flow.seed}.
 * Prints one {@code FLOW ...} line per run, also appended to
 * {@code target/flow-torture-summary.txt}.
 */
public abstract class FlowTortureHarness {

	static final int PROCESSES = Integer.getInteger("flow.processes", 3);

	static final int THREADS = Integer.getInteger("flow.threads", 4);

	/** Ordered jobs of the run with kills. */
	static final int ORDERED_JOBS = Integer.getInteger("flow.orderedJobs", 10_000);

	/**
	 * Ordered jobs of the run without kills, fewer: the run with kills checks the same at
	 * full size, and the claim by rounds of a server store takes about 100 jobs a second
	 * on a loaded 2-core machine.
	 */
	static final int BASELINE_ORDERED_JOBS = Integer.getInteger("flow.baselineOrderedJobs", 3_000);

	static final int ORDERED_KEYS = Integer.getInteger("flow.orderedKeys", 100);

	static final int PAIRS_KEYED_JOBS = 1_000;

	static final int PAIRS_UNKEYED_JOBS = 100;

	static final int PAIRS_KEYS = 20;

	/**
	 * Enough to keep the type's rate limit busy for about fifteen seconds. The limits ask
	 * for 10 starts a second, little enough for a loaded machine to reach them on every
	 * store: the test must see them bite.
	 */
	static final int RATED_JOBS = 180;

	static final int RATED_KEYS = 6;

	static final int KILLS = Integer.getInteger("flow.kills", 2);

	/** Short, so a killed worker's jobs come back soon. */
	static final long LEASE = 1_500;

	/** Fixed, so that one claim round has a known size. */
	static final int CLAIM_AHEAD = 4;

	static final int BUSY_JOBS = Integer.getInteger("flow.busyJobs", 100_000);

	static final long SEED = Long.getLong("flow.seed", 25);

	/** The busy key's jobs of the test of turns with claim-ahead at its default. */
	static final int TURNS_BUSY_JOBS = Integer.getInteger("flow.turnsBusyJobs", 3_000);

	/** How long each of them runs. */
	static final int TURNS_SLEEP_MILLIS = 100;

	static final int BATCH = 500;

	/**
	 * Milliseconds of the few long runs, for the kills to cut off (the others take a few
	 * milliseconds).
	 */
	static final int LONG_RUN = 300;

	/**
	 * Jobs of the measurement of a rate limit at the handlers on a saturated machine (0:
	 * not run).
	 */
	static final int SATURATED_RATED_JOBS = Integer.getInteger("flow.saturatedRatedJobs", 0);

	/** Threads of this JVM that spin on the CPU through that measurement. */
	static final int SPINNERS = Integer.getInteger("flow.spinners", 2);

	/** What the stores round times to: at most a millisecond. */
	static final long STORE_TIME_RESOLUTION = 1_000;

	@TempDir
	Path dir;

	/** The store under test. */
	protected abstract TortureStore store();

	/**
	 * Ordered jobs of the run with kills. A store whose claim by rounds is slow may run
	 * fewer in CI (PostgreSQL, MariaDB): SQLite runs the full size.
	 */
	protected int orderedJobsWithKills() {
		return ORDERED_JOBS;
	}

	/** Ordered jobs of the run without kills. */
	protected int orderedJobsWithoutKills() {
		return BASELINE_ORDERED_JOBS;
	}

	@Test
	void keyLimitsRateLimitsAndOrderHoldAcrossThreeWorkerJvms() throws Exception {
		run(0, orderedJobsWithoutKills());
	}

	/**
	 * The same load while one worker JVM at a time is killed mid-run and replaced: the
	 * killed runs' keys are held until the queue takes their jobs back, then released.
	 */
	@Test
	void limitsAndOrderHoldWhenWorkersAreKilledAndKilledJobsReleaseTheirKeysAfterRecovery() throws Exception {
		Outcome outcome = run(KILLS, orderedJobsWithKills());
		assertThat(outcome.killedKeyedRuns).as("runs of limited keys cut off by the kills").isPositive();
		assertThat(outcome.leaseRecoveries).as("jobs taken back from killed workers").isPositive();
	}

	@Test
	void aQuietKeysJobStartsWithinOneClaimRoundWhileABusyKeyHasAHundredThousandDue() throws Exception {
		fairness(FAIR, BUSY_JOBS);
	}

	/**
	 * The busy key at its limit cannot take the slots; a claim that looks at the first
	 * due jobs in order and drops those of full keys would still find nothing else.
	 */
	@Test
	void aQuietKeysJobStartsWithinOneClaimRoundWhileABusyKeyAtItsLimitHasThousandsDue() throws Exception {
		fairness(FAIR_PAIRS, BUSY_JOBS / 5);
	}

	/** What a run showed beyond its assertions, for the tests that need more. */
	private record Outcome(long killedKeyedRuns, long leaseRecoveries) {
	}

	/** One enqueued job: its type, key ({@code null} for none) and sleep. */
	private record Planned(String type, String key, int sleepMillis) {
	}

	/** A claim of a rate-limited job as the queue recorded it: its attempt's start. */
	private record Claim(long at, long jobId, int run, String workerId) {
	}

	/** A JVM seen dead after a SIGKILL, and when. */
	private record Kill(long pid, long deadAt, boolean onKeyedJob) {
	}

	private Outcome run(int kills, int orderedJobs) throws Exception {
		long began = System.nanoTime();
		TortureStore store = store();
		Path records = Files.createDirectory(this.dir.resolve("records"));
		Path marker = this.dir.resolve("enqueue-done");
		try (StoreFixture db = store.create(this.dir); WorkerJvms jvms = workerJvms(store, db, records, marker)) {
			DefaultJobQueue queue = queue(db);
			List<ChildJvm> workers = new ArrayList<>();
			for (int i = 0; i < PROCESSES; i++) {
				workers.add(jvms.launch());
			}
			Random random = new Random(SEED);
			List<Planned> plan = plan(random, orderedJobs);
			Map<Long, Planned> jobs = new HashMap<>();
			for (int from = 0; from < plan.size(); from += BATCH) {
				List<Planned> batch = plan.subList(from, Math.min(plan.size(), from + BATCH));
				List<Long> ids = queue.enqueueAll(batch.stream()
					.map((job) -> JobRequest.of(job.type(), job.sleepMillis()).key(job.key()))
					.toList());
				for (int i = 0; i < ids.size(); i++) {
					jobs.put(ids.get(i), batch.get(i));
				}
			}

			List<Kill> killed = new ArrayList<>();
			int badExits = 0;
			for (int k = 1; k <= kills; k++) {
				long progress = (long) plan.size() * k / (kills + 1);
				await("progress before kill " + k).atMost(Duration.ofMinutes(3))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'") >= progress);
				int victim = random.nextInt(workers.size());
				ChildJvm process = workers.get(victim);
				// Aim at a body of a limited key while it runs: the kill must cut one
				// off.
				boolean onKeyedJob;
				try {
					await("a long run of a limited key in worker " + process.pid()).atMost(Duration.ofSeconds(20))
						.pollInterval(Duration.ofMillis(10))
						.until(() -> FlowRecords.read(records)
							.stream()
							.anyMatch((run) -> run.pid() == process.pid() && !run.ended()
									&& jobs.get(run.jobId()).sleepMillis() >= LONG_RUN
									&& jobs.get(run.jobId()).key() != null
									&& LIMITS.get(jobs.get(run.jobId()).type()).runningPerKey() > 0));
					onKeyedJob = true;
				}
				catch (ConditionTimeoutException ex) {
					onKeyedJob = false;
				}
				boolean exitedAsKilled = WorkerJvms.stop(process, Signal.KILL);
				killed.add(new Kill(process.pid(), FlowRecords.nowMicros(), onKeyedJob));
				if (!exitedAsKilled) {
					badExits++;
				}
				workers.set(victim, jvms.launch());
			}
			await("every job finished").atMost(Duration.ofMinutes(5))
				.pollInterval(Duration.ofMillis(250))
				.until(() -> db
					.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')") == 0);
			Files.writeString(marker, "done");
			badExits += WorkerJvms.awaitFinished(workers);
			return judge(store, db, kills, jobs, killed, jvms, badExits, began);
		}
	}

	/**
	 * The load: ordered keys, keys with two slots (and some jobs of that type without a
	 * key), a rate-limited type with one hot key among a few (and some jobs without a
	 * key), shuffled together. A few of the keyed runs are long, for the kills to hit.
	 */
	private static List<Planned> plan(Random random, int orderedJobs) {
		List<Planned> plan = new ArrayList<>();
		for (int i = 0; i < orderedJobs; i++) {
			plan.add(new Planned(ORDERED, String.format(Locale.ROOT, "o%03d", random.nextInt(ORDERED_KEYS)),
					(random.nextInt(100) == 0) ? LONG_RUN : random.nextInt(3)));
		}
		for (int i = 0; i < PAIRS_KEYED_JOBS; i++) {
			plan.add(new Planned(PAIRS, String.format(Locale.ROOT, "p%02d", random.nextInt(PAIRS_KEYS)),
					(random.nextInt(50) == 0) ? LONG_RUN : 2 + random.nextInt(9)));
		}
		for (int i = 0; i < PAIRS_UNKEYED_JOBS; i++) {
			plan.add(new Planned(PAIRS, null, 2 + random.nextInt(9)));
		}
		for (int i = 0; i < RATED_JOBS; i++) {
			int roll = random.nextInt(20);
			// One in ten without a key, a quarter of the rest on the hot key r0.
			String key = (roll < 2) ? null : (roll < 6) ? "r0" : "r" + (1 + random.nextInt(RATED_KEYS - 1));
			plan.add(new Planned(RATED, key, random.nextInt(3)));
		}
		Collections.shuffle(plan, random);
		return plan;
	}

	/**
	 * Reads the handlers' records of a finished run and judges them, and the database;
	 * prints the run's summary line, then fails on the first thing wrong.
	 */
	private Outcome judge(TortureStore store, StoreFixture db, int kills, Map<Long, Planned> jobs, List<Kill> killed,
			WorkerJvms jvms, int badExits, long began) throws Exception {
		List<Run> runs = FlowRecords.read(this.dir.resolve("records"));
		Map<Long, Long> deadAt = new HashMap<>();
		killed.forEach((kill) -> deadAt.put(kill.pid(), kill.deadAt()));
		List<String> problems = new ArrayList<>();
		Set<Long> ended = new HashSet<>();
		Map<String, List<Interval>> byKey = new TreeMap<>();
		Map<String, List<Long>> startsByLimit = new TreeMap<>();
		long killedKeyedRuns = 0;
		long killedRuns = 0;
		Map<String, List<Interval>> cutOffByKey = new TreeMap<>();
		for (Run run : runs) {
			Planned job = jobs.get(run.jobId());
			if (job == null) {
				problems.add("a run of job " + run.jobId() + ", which the test did not enqueue");
				continue;
			}
			long end = run.end();
			if (run.ended()) {
				ended.add(run.jobId());
			}
			else {
				killedRuns++;
				end = heldUntil(db, run, deadAt, problems);
				if (job.key() != null && LIMITS.get(job.type()).runningPerKey() > 0) {
					killedKeyedRuns++;
					cutOffByKey.computeIfAbsent(job.type() + "/" + job.key(), (k) -> new ArrayList<>())
						.add(new Interval(run.jobId(), run.start(), Math.max(end, run.start())));
				}
			}
			if (job.key() != null) {
				byKey.computeIfAbsent(job.type() + "/" + job.key(), (k) -> new ArrayList<>())
					.add(new Interval(run.jobId(), run.start(), Math.max(end, run.start())));
			}
			if (job.type().equals(RATED)) {
				startsByLimit.computeIfAbsent(RATED, (k) -> new ArrayList<>()).add(run.start());
				if (job.key() != null) {
					startsByLimit.computeIfAbsent(RATED + "/" + job.key(), (k) -> new ArrayList<>()).add(run.start());
				}
			}
		}

		// Limits per key, and order.
		Map<String, List<Long>> enqueuedByKey = new LinkedHashMap<>();
		new TreeMap<>(jobs).forEach((id, job) -> {
			if (job.key() != null) {
				enqueuedByKey.computeIfAbsent(job.type() + "/" + job.key(), (k) -> new ArrayList<>()).add(id);
			}
		});
		Map<String, Integer> mostPerKey = new TreeMap<>();
		List<String> orderViolations = new ArrayList<>();
		byKey.forEach((key, intervals) -> {
			String type = key.substring(0, key.indexOf('/'));
			int most = FlowChecks.maxConcurrent(intervals);
			mostPerKey.merge(type, most, Math::max);
			int limit = LIMITS.get(type).runningPerKey();
			if (limit > 0 && most > limit) {
				problems.add(key + " had " + most + " runs at once, above its limit of " + limit);
			}
			if (LIMITS.get(type).ordered()) {
				orderViolations.addAll(FlowChecks.orderViolations(key, enqueuedByKey.get(key), intervals, ended));
			}
		});
		List<Long> unrun = jobs.keySet().stream().filter((id) -> !ended.contains(id)).sorted().toList();
		// A killed run's key goes on once the queue took the job back: at least the job's
		// own next run starts after that.
		long releasedAfterRecovery = cutOffByKey.entrySet()
			.stream()
			.mapToLong((key) -> key.getValue()
				.stream()
				.filter((cutOff) -> startsAfter(byKey.get(key.getKey()), cutOff.end()))
				.count())
			.sum();

		Rates rates = rates(db, jobs, runs, startsByLimit, problems);

		long succeeded = db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'");
		long unfinished = db.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')");
		long recoveries = db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'LEASE_EXPIRED'");
		long loopFailures = jvms.loopFailures();
		List<String> violations;
		try (Connection connection = store.connect(db)) {
			violations = QueueInvariants.violations(connection, "");
		}
		String summary = String.format(Locale.ROOT,
				"FLOW store=%s kills=%d (on keyed runs %d) processes=%d threads=%d jobs=%d runs=%d killedRuns=%d "
						+ "(of limited keys %d, whose key went on after recovery %d) leaseRecoveries=%d "
						+ "runs(type)=%s mostRunningPerKey=%s orderViolations=%d unrun=%d "
						+ "rates(shortened/full/claimed)=%s longestClaimToStartMicros=%d succeeded=%d unfinished=%d "
						+ "loopFailures=%d badExits=%d invariantViolations=%d problems=%d seconds=%.0f seed=%d",
				getClass().getSimpleName(), killed.size(), killed.stream().filter(Kill::onKeyedJob).count(), PROCESSES,
				THREADS, jobs.size(), runs.size(), killedRuns, killedKeyedRuns, releasedAfterRecovery, recoveries,
				pace(jobs, runs), mostPerKey, orderViolations.size(), unrun.size(), rates.summary(),
				rates.longestDelay(), succeeded, unfinished, loopFailures, badExits, violations.size(), problems.size(),
				(System.nanoTime() - began) / 1e9, SEED);
		TortureReport.print(summary, "flow-torture-summary.txt");
		orderViolations.stream().limit(20).forEach(System.err::println);
		problems.stream().limit(20).forEach(System.err::println);

		assertThat(violations).as("invariants").isEmpty();
		assertThat(problems).as("limits broken (see the lines above)").isEmpty();
		assertThat(orderViolations).as("ordered keys out of order (see the lines above)").isEmpty();
		assertThat(unrun).as("jobs whose body never ran to its end").isEmpty();
		assertThat(succeeded).isEqualTo(jobs.size());
		assertThat(unfinished).isZero();
		assertThat(loopFailures).isZero();
		assertThat(badExits).as("JVMs that did not exit as expected (see the logs above)").isZero();
		assertThat(mostPerKey).as("the key limits were reached, so they were tested")
			.containsEntry(ORDERED, 1)
			.containsEntry(PAIRS, 2);
		for (String reached : List.of(RATED, RATED + "/r0")) {
			RateLimit limit = limitOf(reached);
			assertThat(FlowChecks.maxInWindow(claimTimes(rates.claims().get(reached)), micros(limit.window())))
				.as("%s's rate limit was reached, so it was tested", reached)
				.isEqualTo(limit.permits());
		}
		assertThat(rates.shortestWindow()).as("a window left after the longest claim-to-start delay").isPositive();
		if (kills > 0) {
			assertThat(killed).hasSize(kills);
		}
		assertThat(releasedAfterRecovery).as("runs cut off by a kill whose key went on after the job was taken back")
			.isEqualTo(killedKeyedRuns);
		return new Outcome(killedKeyedRuns, recoveries);
	}

	/**
	 * The rate limits: the bodies' starts in windows shortened by the longest delay from
	 * claim to start, and the queue's own claim times in full windows. Breaches go to
	 * {@code problems}.
	 */
	private static Rates rates(StoreFixture db, Map<Long, Planned> jobs, List<Run> runs,
			Map<String, List<Long>> startsByLimit, List<String> problems) {
		Map<String, List<Claim>> claimsByLimit = new TreeMap<>();
		long longestDelay = 0;
		Map<Long, List<Attempt>> ratedAttempts = new HashMap<>();
		for (Map.Entry<Long, Planned> job : jobs.entrySet()) {
			if (job.getValue().type().equals(RATED)) {
				List<Attempt> attempts = db.insights().job(job.getKey(), 0).orElseThrow().attempts();
				ratedAttempts.put(job.getKey(), attempts);
				for (Attempt attempt : attempts) {
					Claim claim = new Claim(FlowRecords.micros(attempt.startedAt()), job.getKey(), attempt.run(),
							attempt.workerId());
					claimsByLimit.computeIfAbsent(RATED, (k) -> new ArrayList<>()).add(claim);
					if (job.getValue().key() != null) {
						claimsByLimit.computeIfAbsent(RATED + "/" + job.getValue().key(), (k) -> new ArrayList<>())
							.add(claim);
					}
				}
			}
		}
		for (Run run : runs) {
			List<Attempt> attempts = ratedAttempts.get(run.jobId());
			if (attempts != null) {
				long claimed = attempts.stream()
					.mapToLong((attempt) -> FlowRecords.micros(attempt.startedAt()))
					.filter((at) -> at <= run.start() + STORE_TIME_RESOLUTION)
					.max()
					.orElse(Long.MIN_VALUE);
				if (claimed == Long.MIN_VALUE) {
					problems.add("job " + run.jobId() + "'s body started at " + run.start()
							+ ", before any claim of it: " + attempts);
				}
				else {
					longestDelay = Math.max(longestDelay, run.start() - claimed);
				}
			}
		}
		Map<String, String> rates = new TreeMap<>();
		long shortest = Long.MAX_VALUE;
		for (Map.Entry<String, List<Claim>> claims : claimsByLimit.entrySet()) {
			RateLimit limit = limitOf(claims.getKey());
			long window = micros(limit.window());
			long shortened = window - Math.min(longestDelay, window / 4) - STORE_TIME_RESOLUTION;
			shortest = Math.min(shortest, shortened);
			long[] starts = toArray(startsByLimit.get(claims.getKey()));
			int inShortened = (shortened > 0) ? FlowChecks.maxInWindow(starts, shortened) : 0;
			int inFull = FlowChecks.maxInWindow(starts, window);
			int claimedInFull = FlowChecks.maxInWindow(claimTimes(claims.getValue()), window);
			rates.put(claims.getKey(), inShortened + "/" + inFull + "/" + claimedInFull + " of " + limit);
			if (inShortened > limit.permits()) {
				problems.add(claims.getKey() + ": " + inShortened + " bodies started within " + shortened
						+ " microseconds (the window less the longest claim-to-start delay, at most a quarter of it), "
						+ "above " + limit);
			}
			if (claimedInFull > limit.permits()) {
				problems.add(claims.getKey() + ": the queue claimed " + claimedInFull
						+ " jobs within one window, above " + limit + "; the first such window: "
						+ firstWindowAbove(claims.getValue(), window, limit.permits()));
			}
		}

		return new Rates(rates, longestDelay, shortest, claimsByLimit);
	}

	/**
	 * What the rate limits' check found.
	 *
	 * @param summary by type or key, the most bodies started in a shortened window, in a
	 * full window, and the most claims in a full window
	 * @param longestDelay the longest time from a claim to its body's start
	 * @param shortestWindow the shortest window the bodies' starts were counted in
	 * @param claims by type or key, the claims the queue recorded
	 */
	private record Rates(Map<String, String> summary, long longestDelay, long shortestWindow,
			Map<String, List<Claim>> claims) {
	}

	/** How fast each type went: runs per second from its first start to its last end. */
	private static Map<String, String> pace(Map<Long, Planned> jobs, List<Run> runs) {
		Map<String, String> pace = new TreeMap<>();
		Map<String, List<Run>> runsByType = new TreeMap<>();
		for (Run run : runs) {
			Planned job = jobs.get(run.jobId());
			if (job != null) {
				runsByType.computeIfAbsent(job.type(), (k) -> new ArrayList<>()).add(run);
			}
		}
		runsByType.forEach((type, typeRuns) -> {
			long first = typeRuns.stream().mapToLong(Run::start).min().orElse(0);
			long last = typeRuns.stream().mapToLong((run) -> Math.max(run.start(), run.end())).max().orElse(0);
			double seconds = Math.max(1, last - first) / 1e6;
			pace.put(type, String.format(Locale.ROOT, "%d in %.1fs (%.0f/s)", typeRuns.size(), seconds,
					typeRuns.size() / seconds));
		});
		return pace;
	}

	/** Whether a run of the key started at or after {@code time}. */
	private static boolean startsAfter(List<Interval> keyRuns, long time) {
		return keyRuns.stream().anyMatch((run) -> run.start() >= time);
	}

	/**
	 * Until when a run cut off by a kill held its job's key: until the queue took the job
	 * back (its attempt ended LEASE_EXPIRED), and at least until its JVM was seen dead.
	 */
	private static long heldUntil(StoreFixture db, Run run, Map<Long, Long> deadAt, List<String> problems) {
		Long dead = deadAt.get(run.pid());
		if (dead == null) {
			problems
				.add("job " + run.jobId() + "'s body never ended in process " + run.pid() + ", which was not killed");
			return run.start();
		}
		List<Attempt> attempts = db.insights().job(run.jobId(), 0).orElseThrow().attempts();
		Attempt claim = null;
		for (Attempt attempt : attempts) {
			if (FlowRecords.micros(attempt.startedAt()) <= run.start() + STORE_TIME_RESOLUTION) {
				claim = attempt;
			}
		}
		if (claim == null || !"LEASE_EXPIRED".equals(claim.outcome()) || claim.finishedAt() == null) {
			problems
				.add("job " + run.jobId() + "'s run cut off by a kill was not taken back after its lease: " + attempts);
			return dead;
		}
		return Math.max(dead, FlowRecords.micros(claim.finishedAt()));
	}

	/**
	 * A quiet key's single job, enqueued while a busy key of the same type has
	 * {@code due} jobs due and the workers are busy with them, starts within one claim
	 * round: before the workers have started more of the busy key's jobs than they held
	 * when it was enqueued (at most the room of each, {@code threads + claim-ahead}) and
	 * one more claim of each.
	 */
	private void fairness(String type, int due) throws Exception {
		long began = System.nanoTime();
		TortureStore store = store();
		Path records = Files.createDirectory(this.dir.resolve("records"));
		Path marker = this.dir.resolve("never");
		int warmUp = 200;
		try (StoreFixture db = store.create(this.dir); WorkerJvms jvms = workerJvms(store, db, records, marker)) {
			DefaultJobQueue queue = queue(db);
			List<JobRequest> batch = new ArrayList<>();
			for (int i = 0; i < due + 10 * warmUp; i++) {
				batch.add(JobRequest.of(type, 1).key("busy"));
				if (batch.size() == 1_000) {
					queue.enqueueAll(batch);
					batch.clear();
				}
			}
			queue.enqueueAll(batch);
			List<ChildJvm> workers = new ArrayList<>();
			for (int i = 0; i < PROCESSES; i++) {
				workers.add(jvms.launch());
			}
			await("the workers busy with the busy key").atMost(Duration.ofMinutes(2))
				.pollInterval(Duration.ofMillis(100))
				.until(() -> FlowRecords.read(records).size() >= warmUp);

			long quiet = queue.enqueue(JobRequest.of(type, 0).key("quiet"));
			long enqueuedAt = FlowRecords.nowMicros();
			long busyDue = db.count("SELECT count(*) FROM jobs WHERE job_key = 'busy' AND status = 'pending'");
			Run quietRun = await("the quiet key's job started").atMost(Duration.ofMinutes(2))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> FlowRecords.read(records)
					.stream()
					.filter((run) -> run.jobId() == quiet)
					.findFirst()
					.orElse(null), (run) -> run != null);
			int badExits = 0;
			for (ChildJvm worker : workers) {
				worker.terminate();
			}
			for (ChildJvm worker : workers) {
				if (!WorkerJvms.exitedAfter(worker, Signal.TERM)) {
					badExits++;
				}
			}
			List<Run> runs = FlowRecords.read(records);
			long busyStartsBetween = runs.stream()
				.filter((run) -> run.jobId() != quiet && run.start() > enqueuedAt && run.start() < quietRun.start())
				.count();
			long busyStartsBefore = runs.stream().filter((run) -> run.start() <= enqueuedAt).count();
			int oneClaimRound = PROCESSES * (THREADS + CLAIM_AHEAD);
			long loopFailures = jvms.loopFailures();
			TortureReport.print(String.format(Locale.ROOT,
					"FLOW-FAIRNESS store=%s type=%s limits=%s processes=%d threads=%d claimAhead=%d busyDue=%d "
							+ "busyStartsBeforeQuietEnqueued=%d busyStartsBetweenQuietEnqueuedAndStarted=%d "
							+ "bound=%d (2 claim rounds of %d) quietStartedAfterMicros=%d loopFailures=%d badExits=%d "
							+ "seconds=%.0f",
					getClass().getSimpleName(), type, LIMITS.get(type), PROCESSES, THREADS, CLAIM_AHEAD, busyDue,
					busyStartsBefore, busyStartsBetween, 2 * oneClaimRound, oneClaimRound,
					quietRun.start() - enqueuedAt, loopFailures, badExits, (System.nanoTime() - began) / 1e9),
					"flow-torture-summary.txt");
			assertThat(busyDue).as("the busy key's jobs due when the quiet job went in").isGreaterThanOrEqualTo(due);
			assertThat(busyStartsBetween)
				.as("busy jobs started after the quiet job was enqueued and before it started: those the workers "
						+ "held then, and one claim round")
				.isLessThanOrEqualTo(2L * oneClaimRound);
			assertThat(loopFailures).isZero();
			assertThat(badExits).isZero();
		}
	}

	/**
	 * Keys take turns as users see them, with claim-ahead at its default (as an
	 * application has it): a busy key's {@value #TURNS_BUSY_JOBS} jobs of
	 * {@value #TURNS_SLEEP_MILLIS} ms, the workers' buffers full of them, then a quiet
	 * key's single job. The claim takes keys in turn, so some worker claims the quiet job
	 * at its next claim; then that worker's buffer must serve it at its next free slot,
	 * not behind the busy key's jobs it claimed before. A measurement: it prints the
	 * quiet job's wait and the busy jobs started meanwhile, in all and in its worker
	 * after its claim ({@code FLOW-TURNS}); the order itself is asserted by the buffer's
	 * unit tests and the store suite (ClaimAheadTests), since from outside the busy jobs
	 * whose slot passed on while a slow claim was written cannot be told apart. Run on
	 * demand ({@code -Dflow.turns=true}), as the figures in docs/reliability.md were.
	 */
	@Test
	@EnabledIfSystemProperty(named = "flow.turns", matches = "true")
	void aQuietKeysJobStartsAtItsWorkersNextFreeSlotWithClaimAheadAtItsDefault() throws Exception {
		long began = System.nanoTime();
		TortureStore store = store();
		Path records = Files.createDirectory(this.dir.resolve("records"));
		Path marker = this.dir.resolve("never");
		try (StoreFixture db = store.create(this.dir);
				WorkerJvms jvms = new WorkerJvms(FlowTortureWorker.class, "turns", this.dir, store, db, THREADS, LEASE,
						records, marker, FlowTortureWorker.DEFAULT_CLAIM_AHEAD)) {
			DefaultJobQueue queue = queue(db);
			List<JobRequest> busy = new ArrayList<>();
			for (int i = 0; i < TURNS_BUSY_JOBS; i++) {
				busy.add(JobRequest.of(FAIR, TURNS_SLEEP_MILLIS).key("busy"));
			}
			queue.enqueueAll(busy);
			List<ChildJvm> workers = new ArrayList<>();
			for (int i = 0; i < PROCESSES; i++) {
				workers.add(jvms.launch());
			}
			// Every worker busy and its buffer filled: each has started some jobs.
			await("every worker busy with the busy key").atMost(Duration.ofMinutes(2))
				.pollInterval(Duration.ofMillis(100))
				.until(() -> FlowRecords.read(records).stream().map(Run::pid).distinct().count() == PROCESSES
						&& FlowRecords.read(records).size() >= 10 * PROCESSES * THREADS);
			long quiet = queue.enqueue(JobRequest.of(FAIR, 0).key("quiet"));
			long enqueuedAt = FlowRecords.nowMicros();
			Run quietRun = await("the quiet key's job started").atMost(Duration.ofMinutes(2))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> FlowRecords.read(records)
					.stream()
					.filter((run) -> run.jobId() == quiet)
					.findFirst()
					.orElse(null), (run) -> run != null);
			long busyDue = db.count("SELECT count(*) FROM jobs WHERE job_key = 'busy' AND status = 'pending'");
			for (ChildJvm worker : workers) {
				worker.terminate();
			}
			int badExits = 0;
			for (ChildJvm worker : workers) {
				if (!WorkerJvms.exitedAfter(worker, Signal.TERM)) {
					badExits++;
				}
			}
			Attempt claim = db.insights().job(quiet, 0).orElseThrow().attempts().get(0);
			long claimedAt = FlowRecords.micros(claim.startedAt());
			List<Run> runs = FlowRecords.read(records);
			long busyStartsBetween = runs.stream()
				.filter((run) -> run.jobId() != quiet && run.start() > enqueuedAt && run.start() < quietRun.start())
				.count();
			long busyStartsBefore = runs.stream()
				.filter((run) -> run.jobId() != quiet && run.start() < quietRun.start())
				.count();
			long busyStartsInItsWorkerAfterItsClaim = runs.stream()
				.filter((run) -> run.jobId() != quiet && run.pid() == quietRun.pid() && run.start() > claimedAt
						&& run.start() < quietRun.start())
				.count();
			long loopFailures = jvms.loopFailures();
			TortureReport.print(String.format(Locale.ROOT,
					"FLOW-TURNS store=%s processes=%d threads=%d claimAhead=default busyJobs=%d sleepMillis=%d "
							+ "busyDueAfter=%d quietWaitMillis=%.0f quietClaimedAfterMillis=%.0f "
							+ "busyStartsBetweenEnqueuedAndStarted=%d busyStartsInItsWorkerAfterItsClaim=%d "
							+ "loopFailures=%d badExits=%d seconds=%.0f",
					getClass().getSimpleName(), PROCESSES, THREADS, TURNS_BUSY_JOBS, TURNS_SLEEP_MILLIS, busyDue,
					(quietRun.start() - enqueuedAt) / 1e3, (claimedAt - enqueuedAt) / 1e3, busyStartsBetween,
					busyStartsInItsWorkerAfterItsClaim, loopFailures, badExits, (System.nanoTime() - began) / 1e9),
					"flow-torture-summary.txt");
			assertThat(TURNS_BUSY_JOBS - busyStartsBefore)
				.as("busy jobs not started when the quiet job started: a backlog it went past")
				.isGreaterThan(PROCESSES * THREADS);
			assertThat(loopFailures).isZero();
			assertThat(badExits).isZero();
		}
	}

	/**
	 * A rate limit as the handlers see it on a saturated machine: {@code 20/1s},
	 * {@value #PROCESSES} worker JVMs, and {@link #SPINNERS} threads of this JVM spinning
	 * on the CPU meanwhile, so that the delay from a claim to its handler's start grows
	 * to seconds. It prints the most handler starts in any window, by the handlers' own
	 * clocks ({@code FLOW-SATURATED}), and the most claims, and asserts that neither is
	 * above the limit: the log of starts records the handler's start, not the claim's
	 * (the handlers' starts are counted in windows shortened as the flow torture's are,
	 * by the claim-to-start delay but by at most a quarter of the window: the worker
	 * records the start just before the handler records its own). On demand
	 * ({@code -Dflow.saturatedRatedJobs=1000}), as the figures in docs/reliability.md
	 * were.
	 */
	@Test
	@EnabledIfSystemProperty(named = "flow.saturatedRatedJobs", matches = "[1-9][0-9]*")
	void aRateLimitHoldsAtTheHandlersOnASaturatedMachine() throws Exception {
		long began = System.nanoTime();
		TortureStore store = store();
		Path records = Files.createDirectory(this.dir.resolve("records"));
		Path marker = this.dir.resolve("enqueue-done");
		AtomicBoolean spinning = new AtomicBoolean(true);
		List<Thread> spinners = new ArrayList<>();
		try (StoreFixture db = store.create(this.dir); WorkerJvms jvms = workerJvms(store, db, records, marker)) {
			DefaultJobQueue queue = queue(db);
			Random random = new Random(SEED);
			List<JobRequest> batch = new ArrayList<>();
			for (int i = 0; i < SATURATED_RATED_JOBS; i++) {
				batch.add(JobRequest.of(SATURATED_RATED, random.nextInt(3)));
			}
			List<Long> ids = new ArrayList<>();
			for (int from = 0; from < batch.size(); from += BATCH) {
				ids.addAll(queue.enqueueAll(batch.subList(from, Math.min(batch.size(), from + BATCH))));
			}
			for (int i = 0; i < SPINNERS; i++) {
				Thread spinner = new Thread(() -> {
					long spins = 0;
					while (spinning.get()) {
						spins++;
					}
					if (spins < 0) {
						System.out.println(spins);
					}
				}, "spinner-" + i);
				spinner.setDaemon(true);
				spinner.start();
				spinners.add(spinner);
			}
			List<ChildJvm> workers = new ArrayList<>();
			for (int i = 0; i < PROCESSES; i++) {
				workers.add(jvms.launch());
			}
			RateLimit limit = LIMITS.get(SATURATED_RATED).rateLimit();
			long seconds = SATURATED_RATED_JOBS * limit.window().toSeconds() / limit.permits();
			await("every job finished").atMost(Duration.ofSeconds(2 * seconds + 180))
				.pollInterval(Duration.ofMillis(500))
				.until(() -> db
					.count("SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')") == 0);
			spinning.set(false);
			Files.writeString(marker, "done");
			int badExits = WorkerJvms.awaitFinished(workers);

			List<Run> runs = FlowRecords.read(records);
			long[] handlerStarts = runs.stream().mapToLong(Run::start).toArray();
			List<Long> claimTimes = new ArrayList<>();
			long longestDelay = 0;
			Map<Long, Long> lastClaim = new HashMap<>();
			for (long id : ids) {
				for (Attempt attempt : db.insights().job(id, 0).orElseThrow().attempts()) {
					long at = FlowRecords.micros(attempt.startedAt());
					claimTimes.add(at);
					lastClaim.merge(id, at, Math::max);
				}
			}
			for (Run run : runs) {
				Long claimed = lastClaim.get(run.jobId());
				if (claimed != null) {
					longestDelay = Math.max(longestDelay, run.start() - claimed);
				}
			}
			long window = micros(limit.window());
			long shortened = window - Math.min(longestDelay, window / 4) - STORE_TIME_RESOLUTION;
			int handlersInWindow = FlowChecks.maxInWindow(handlerStarts, window);
			int handlersInShortened = FlowChecks.maxInWindow(handlerStarts, shortened);
			int claimsInWindow = FlowChecks.maxInWindow(toArray(claimTimes), window);
			long succeeded = db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'");
			long loopFailures = jvms.loopFailures();
			TortureReport.print(String.format(Locale.ROOT,
					"FLOW-SATURATED store=%s limit=%s jobs=%d processes=%d threads=%d spinners=%d runs=%d "
							+ "mostHandlerStartsInWindow=%d (in the window less the longest delay, at most a quarter: %d) "
							+ "mostClaimsInWindow=%d "
							+ "longestClaimToStartMicros=%d succeeded=%d loopFailures=%d badExits=%d seconds=%.0f",
					getClass().getSimpleName(), limit, SATURATED_RATED_JOBS, PROCESSES, THREADS, SPINNERS, runs.size(),
					handlersInWindow, handlersInShortened, claimsInWindow, longestDelay, succeeded, loopFailures,
					badExits, (System.nanoTime() - began) / 1e9), "flow-torture-summary.txt");
			assertThat(claimsInWindow).as("claims in one window").isLessThanOrEqualTo(limit.permits());
			assertThat(handlersInShortened).as("handler starts in one window (less what FlowTortureHarness says)")
				.isLessThanOrEqualTo(limit.permits());
			assertThat(succeeded).isEqualTo(SATURATED_RATED_JOBS);
			assertThat(loopFailures).isZero();
			assertThat(badExits).isZero();
		}
		finally {
			spinning.set(false);
			for (Thread spinner : spinners) {
				spinner.join();
			}
		}
	}

	private static DefaultJobQueue queue(StoreFixture db) {
		return new DefaultJobQueue(db.store(), db.admin(), WorkerHarness.CODEC, new HandlerRegistry(),
				Clock.systemUTC(), new EnqueueLimits(10, 1 << 20), null);
	}

	private WorkerJvms workerJvms(TortureStore store, StoreFixture db, Path records, Path marker) {
		return new WorkerJvms(FlowTortureWorker.class, "flow", this.dir, store, db, THREADS, LEASE, records, marker,
				CLAIM_AHEAD);
	}

	/**
	 * The rate limit of a type ({@code rated}) or of one of its keys ({@code rated/r0}).
	 */
	private static RateLimit limitOf(String limited) {
		FlowControl limits = LIMITS.get(limited.split("/")[0]);
		return limited.contains("/") ? limits.keyRateLimit() : limits.rateLimit();
	}

	private static long micros(Duration duration) {
		return duration.toNanos() / 1_000;
	}

	private static long[] claimTimes(List<Claim> claims) {
		return (claims == null) ? new long[0] : claims.stream().mapToLong(Claim::at).toArray();
	}

	/**
	 * The claims of the first window that holds more than {@code permits}, each as its
	 * time in milliseconds after the window's first claim, job, run and worker.
	 */
	private static String firstWindowAbove(List<Claim> claims, long window, int permits) {
		List<Claim> sorted = new ArrayList<>(claims);
		sorted.sort(java.util.Comparator.comparingLong(Claim::at));
		int first = 0;
		for (int last = 0; last < sorted.size(); last++) {
			while (sorted.get(last).at() - sorted.get(first).at() >= window) {
				first++;
			}
			if (last - first + 1 > permits) {
				long from = sorted.get(first).at();
				StringBuilder described = new StringBuilder("from " + from + " microseconds:");
				for (Claim claim : sorted.subList(first, last + 1)) {
					described.append(String.format(Locale.ROOT, " +%.3fms job %d run %d by %s;",
							(claim.at() - from) / 1e3, claim.jobId(), claim.run(), claim.workerId()));
				}
				return described.toString();
			}
		}
		return "none";
	}

	private static long[] toArray(List<Long> values) {
		return (values == null) ? new long[0] : values.stream().mapToLong(Long::longValue).toArray();
	}

}
