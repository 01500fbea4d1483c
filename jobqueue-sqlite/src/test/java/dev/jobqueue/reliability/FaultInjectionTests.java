package dev.jobqueue.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.InvalidJobInputException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.core.CallerThreadExecutor;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.worker.DefaultErrorClassifier;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.core.worker.WorkerSettings;
import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.sqlite.SqliteDatabase;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteJobAdminStore;
import dev.jobqueue.sqlite.SqliteJobStore;
import dev.jobqueue.sqlite.SqliteSchema;
import dev.jobqueue.testing.FaultyDataSource;
import dev.jobqueue.testing.FaultyDataSource.Fault;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.LongTest;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Faults injected into the statements of the store's operations (enqueue, claim,
 * complete, renew, recover, cancel), from seeds so that a failing seed replays: after
 * every fault the database is consistent, every job ends done exactly once (or failed for
 * a reason of its own), and the worker keeps going. Each seed runs on a fresh copy of a
 * migrated file. {@code -Dfaults.seeds=N} runs more seeds.
 */
@LongTest
class FaultInjectionTests {

	static final int SEEDS = Integer.getInteger("faults.seeds", 40);

	/**
	 * Jobs of the statement sweep: one of each kind, so every step is one of a short run.
	 */
	static final int SWEEP_JOBS = 5;

	/** Faults injected over all tests of this class, for the summary. */
	static final AtomicInteger totalInjected = new AtomicInteger();

	static Path template;

	@TempDir
	static Path shared;

	@TempDir
	Path dir;

	@BeforeAll
	static void migrateTemplate() {
		template = shared.resolve("template.db");
		try (HikariDataSource pool = SqliteDataSources.create("jdbc:sqlite:" + template, Duration.ofSeconds(5),
				"NORMAL", 1)) {
			new SqliteSchema(pool, SqliteDialect.tables("")).initialize();
		}
	}

	@org.junit.jupiter.api.AfterAll
	static void summary() {
		System.out.println("FAULTS injected=" + totalInjected.get() + " seeds=" + SEEDS);
	}

	@Test
	void randomFaultsFromManySeedsLeaveAConsistentDatabaseAndEveryJobDoneOnce() throws Exception {
		long faults = 0;
		Fault[] kinds = { Fault.FAIL, Fault.BUSY, Fault.FAIL_COMMIT, Fault.LOST_COMMIT, Fault.SLOW, Fault.CANT_OPEN };
		Map<Fault, Long> firedByKind = new java.util.EnumMap<>(Fault.class);
		for (long seed = 1; seed <= SEEDS; seed++) {
			Scenario scenario = new Scenario(this.dir.resolve("seed-" + seed + ".db"), seed, 14);
			scenario.faults.rate(Fault.FAIL, 0.04)
				.rate(Fault.BUSY, 0.04)
				.rate(Fault.FAIL_COMMIT, 0.08)
				.rate(Fault.LOST_COMMIT, 0.05)
				.rate(Fault.SLOW, 0.02)
				.rate(Fault.CANT_OPEN, 0.02);
			scenario.run();
			faults += scenario.faults.injectedTotal();
			for (Fault fault : kinds) {
				firedByKind.merge(fault, scenario.faults.injected(fault), Long::sum);
			}
		}
		totalInjected.addAndGet((int) faults);
		System.out.println("fault injection: " + SEEDS + " seeds, " + faults + " faults injected: " + firedByKind);
		assertThat(faults).isGreaterThan(SEEDS);
		assertThat(firedByKind).as("faults fired, by kind")
			.allSatisfy((fault, fired) -> assertThat(fired).isPositive());
	}

	@Test
	void failingEachStatementOfARunInTurnLeavesAConsistentDatabase() throws Exception {
		Scenario clean = new Scenario(this.dir.resolve("clean.db"), 0, SWEEP_JOBS);
		clean.run();
		List<String> statements = clean.faults.stepStatements();
		long steps = statements.size();
		assertThat(clean.faults.injectedTotal()).isZero();
		int runs = 0;
		Map<Fault, Integer> runsByKind = new java.util.EnumMap<>(Fault.class);
		for (Fault fault : new Fault[] { Fault.FAIL, Fault.FAIL_COMMIT, Fault.LOST_COMMIT, Fault.CANT_OPEN }) {
			for (long step = 1; step <= steps; step++) {
				String statement = statements.get((int) step - 1);
				boolean eligible = switch (fault) {
					case FAIL_COMMIT, LOST_COMMIT -> statement.startsWith("COMMIT");
					case CANT_OPEN -> statement.equals("getConnection");
					default -> !statement.equals("getConnection");
				};
				if (!eligible) {
					continue;
				}
				Scenario scenario = new Scenario(this.dir.resolve(fault + "-" + step + ".db"), step, SWEEP_JOBS);
				scenario.faults.failStep(step, fault);
				scenario.run();
				runs++;
				// The planted fault fired at its step: a sweep whose faults miss their
				// statements would pass on a clean run.
				assertThat(scenario.faults.injected(fault))
					.as("%s planted at step %d (%s) fired", fault, step, statement)
					.isOne();
				runsByKind.merge(fault, 1, Integer::sum);
				totalInjected.addAndGet((int) scenario.faults.injectedTotal());
			}
		}
		System.out.println("fault sweep: " + steps + " steps, " + runs + " runs: " + runsByKind);
		assertThat(runsByKind).as("runs with a fault, by kind")
			.containsOnlyKeys(Fault.FAIL, Fault.FAIL_COMMIT, Fault.LOST_COMMIT, Fault.CANT_OPEN);
	}

	@Test
	void workerLoopSurvivesFaultsAndFinishesEveryJob() throws Exception {
		Path file = this.dir.resolve("loop.db");
		Files.copy(template, file);
		try (HikariDataSource pool = SqliteDataSources.create("jdbc:sqlite:" + file, Duration.ofSeconds(5), "NORMAL",
				4)) {
			FaultyDataSource faults = new FaultyDataSource(pool, 42).rate(Fault.FAIL, 0.05)
				.rate(Fault.BUSY, 0.05)
				.rate(Fault.FAIL_COMMIT, 0.05)
				.rate(Fault.LOST_COMMIT, 0.03)
				.rate(Fault.CANT_OPEN, 0.02);
			SqliteJobStore store = new SqliteJobStore(
					new SqliteDatabase(faults, file.toString(), Duration.ofSeconds(5)), SqliteDialect.tables(""));
			Map<Long, AtomicInteger> done = new ConcurrentHashMap<>();
			HandlerRegistry handlers = new HandlerRegistry();
			handlers.register(HandlerDefinition.of("ok", (payload, context) -> {
				context.heartbeat();
				done.computeIfAbsent(context.jobId(), (id) -> new AtomicInteger()).incrementAndGet();
				return null;
			}));
			DefaultJobQueue queue = new DefaultJobQueue(store, adminOf(store), WorkerHarness.CODEC, handlers,
					Clock.systemUTC(), new EnqueueLimits(10, 1 << 20), null);
			List<JobRequest> requests = new ArrayList<>();
			for (int i = 0; i < 300; i++) {
				requests.add(JobRequest.of("ok", i));
			}
			queue.enqueueAll(requests);
			faults.enabled(true);
			ExecutorService executor = Executors.newFixedThreadPool(4);
			JobWorker worker = new JobWorker(store, handlers, WorkerHarness.CODEC, new DefaultErrorClassifier(),
					new RetryPolicy(Duration.ofMillis(10), Duration.ofMillis(50), () -> 0.5), Clock.systemUTC(),
					new WorkerSettings("faulty", 4, Duration.ofMillis(20), Duration.ofMillis(1500),
							Duration.ofSeconds(2), 3),
					executor, WorkerListener.NONE, null);
			queue.setSignals(worker);
			worker.start();
			// A claim whose commit reply is lost leaves up to a buffer's worth of jobs
			// running under no live run; they come back through lease recovery, whose
			// transactions fail at the same rate as every other, a chunk at a time.
			await().atMost(Duration.ofMinutes(2))
				.pollInterval(Duration.ofMillis(100))
				.until(() -> JobRows.count(file, "SELECT count(*) FROM jobs WHERE status = 'succeeded'") == 300);
			faults.enabled(false);
			worker.stop();
			totalInjected.addAndGet((int) faults.injectedTotal());
			System.out.println("worker loop under faults: " + faults.injectedTotal() + " faults, "
					+ worker.loopFailures() + " loop failures");
			assertThat(faults.injectedTotal()).as("faults fired under the worker").isPositive();
			assertThat(worker.loopFailures()).as("the loop saw faults and went on").isPositive();
			assertThat(Invariants.violations(file)).isEmpty();
			assertThat(done).hasSize(300);
			assertThat(done.values()).allSatisfy((runs) -> assertThat(runs.get()).isEqualTo(1));
			assertThat(JobRows.count(file,
					"SELECT count(*) FROM job_attempts WHERE error_code LIKE '%JobQueueException%'"))
				.as("no database fault is recorded as the job's own failure")
				.isZero();
		}
	}

	@Test
	void failedRollbackDoesNotLeaveTheWriteLockHeldByAPooledConnection() throws Exception {
		Path file = this.dir.resolve("rollback.db");
		Files.copy(template, file);
		try (HikariDataSource pool = SqliteDataSources.create("jdbc:sqlite:" + file, Duration.ofSeconds(1), "NORMAL",
				2)) {
			FaultyDataSource faults = new FaultyDataSource(pool, 1);
			SqliteJobStore store = new SqliteJobStore(
					new SqliteDatabase(faults, file.toString(), Duration.ofSeconds(2)), SqliteDialect.tables(""));
			DefaultJobQueue queue = new DefaultJobQueue(store, adminOf(store), WorkerHarness.CODEC,
					new HandlerRegistry(), Clock.systemUTC(), new EnqueueLimits(3, 1 << 20), null);
			queue.enqueue("job", "before");
			// Step 1 is getConnection, 2 BEGIN IMMEDIATE, 3 the INSERT: it fails, and so
			// does the ROLLBACK after it.
			faults.failRollback(true).failStep(3, Fault.FAIL);
			totalInjected.addAndGet(2);
			org.assertj.core.api.Assertions.assertThatExceptionOfType(dev.jobqueue.JobQueueException.class)
				.isThrownBy(() -> queue.enqueue("job", "fails"));
			faults.failRollback(false);
			// Another process must be able to write at once: the failed transaction does
			// not linger in the pool.
			try (java.sql.Connection other = java.sql.DriverManager.getConnection("jdbc:sqlite:" + file);
					java.sql.Statement statement = other.createStatement()) {
				statement.execute("PRAGMA busy_timeout = 1000");
				statement.execute("BEGIN IMMEDIATE");
				statement.execute("ROLLBACK");
			}
			queue.enqueue("job", "after");
			queue.enqueue("job", "and after");
			assertThat(JobRows.count(file, "SELECT count(*) FROM jobs")).isEqualTo(3);
			assertThat(Invariants.violations(file)).isEmpty();
		}
	}

	@Test
	void anEnqueueRetriedAfterALostCommitReplyWithItsDedupKeyMakesOneJob() throws Exception {
		Path file = this.dir.resolve("lost-reply.db");
		Files.copy(template, file);
		try (HikariDataSource pool = SqliteDataSources.create("jdbc:sqlite:" + file, Duration.ofSeconds(1), "NORMAL",
				2)) {
			FaultyDataSource faults = new FaultyDataSource(pool, 1);
			SqliteJobStore store = new SqliteJobStore(
					new SqliteDatabase(faults, file.toString(), Duration.ofSeconds(2)), SqliteDialect.tables(""));
			DefaultJobQueue queue = new DefaultJobQueue(store, adminOf(store), WorkerHarness.CODEC,
					new HandlerRegistry(), Clock.systemUTC(), new EnqueueLimits(3, 1 << 20), null);
			// Where an enqueue's COMMIT falls among its steps, from one enqueue of
			// another key, after the database's first write (which also looks at how
			// the connections checkpoint).
			queue.enqueue(JobRequest.of("charge", "order-40").dedupKey("charge:order-40"));
			long before = faults.steps();
			queue.enqueue(JobRequest.of("charge", "order-41").dedupKey("charge:order-41"));
			List<String> probe = faults.stepStatements().subList((int) before, (int) faults.steps());
			int commitStep = probe.indexOf(probe.stream()
				.filter((what) -> what.trim().equalsIgnoreCase("COMMIT"))
				.findFirst()
				.orElseThrow(() -> new AssertionError("no COMMIT among " + probe))) + 1;

			// The enqueue's COMMIT runs, then its reply is lost: the caller sees an error
			// although the job exists.
			JobRequest request = JobRequest.of("charge", "order-42").dedupKey("charge:order-42");
			faults.failStep(commitStep, Fault.LOST_COMMIT);
			org.assertj.core.api.Assertions.assertThatExceptionOfType(dev.jobqueue.JobQueueException.class)
				.isThrownBy(() -> queue.enqueue(request));
			assertThat(faults.injected(Fault.LOST_COMMIT)).isOne();
			totalInjected.addAndGet(1);
			String ofKey = "SELECT count(*) FROM jobs WHERE dedup_key = 'charge:order-42'";
			assertThat(JobRows.count(file, ofKey)).isEqualTo(1);

			// The caller retries with the same request: it gets the job the lost reply
			// was about, not a second one.
			long id = queue.enqueue(request);
			assertThat(JobRows.count(file, ofKey)).isEqualTo(1);
			assertThat(JobRows.count(file, "SELECT id FROM jobs WHERE dedup_key = 'charge:order-42'")).isEqualTo(id);
			assertThat(Invariants.violations(file)).isEmpty();
		}
	}

	/** The administration store on the same (faulty) database as {@code store}. */
	static SqliteJobAdminStore adminOf(SqliteJobStore store) {
		return new SqliteJobAdminStore(store.database(), store.tables());
	}

	/**
	 * One seeded run: enqueues jobs of several kinds, cancels some, then polls a worker
	 * (handlers run on the polling thread, time moves by the test clock) with faults on,
	 * then without, until every job is final. The invariants are checked after every
	 * operation, failed or not.
	 */
	static final class Scenario {

		final Path file;

		final long seed;

		final FaultyDataSource faults;

		final MutableClock clock = MutableClock.startingAt("2026-01-01T00:00:00Z");

		final Map<Long, AtomicInteger> completedBodies = new ConcurrentHashMap<>();

		final Map<Long, String> kinds = new ConcurrentHashMap<>();

		final List<Long> cancelled = new ArrayList<>();

		final List<String> operationErrors = new ArrayList<>();

		final int jobs;

		Scenario(Path file, long seed, int jobs) throws Exception {
			this.file = file;
			this.seed = seed;
			this.jobs = jobs;
			Files.copy(template, file);
			// Unpooled: a new connection per use, with the queue's pragmas; the faults
			// sit above it either way.
			org.sqlite.SQLiteDataSource dataSource = new org.sqlite.SQLiteDataSource(
					SqliteDataSources.connectionConfig(Duration.ofSeconds(5), "NORMAL"));
			dataSource.setUrl("jdbc:sqlite:" + file);
			this.faults = new FaultyDataSource(dataSource, seed);
		}

		void run() {
			try {
				runScenario();
			}
			catch (AssertionError ex) {
				throw new AssertionError("seed " + this.seed + ", faults: " + this.faults.log() + "\nerrors: "
						+ this.operationErrors + "\n" + ex.getMessage(), ex);
			}
		}

		private void runScenario() {
			SqliteJobStore store = new SqliteJobStore(
					new SqliteDatabase(this.faults, this.file.toString(), Duration.ofMillis(500)),
					SqliteDialect.tables(""));
			HandlerRegistry handlers = handlers();
			DefaultJobQueue queue = new DefaultJobQueue(store, adminOf(store), WorkerHarness.CODEC, handlers,
					this.clock, new EnqueueLimits(10, 1 << 20), null);
			JobWorker worker = new JobWorker(store, handlers, WorkerHarness.CODEC, new DefaultErrorClassifier(),
					new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(4), () -> 0.5), this.clock,
					new WorkerSettings("w-" + this.seed, 3, Duration.ofMillis(50), Duration.ofSeconds(30),
							Duration.ofSeconds(1), 5),
					new CallerThreadExecutor(), WorkerListener.NONE, null, this.clock.ticker());
			this.faults.enabled(true);
			String[] kindsInTurn = { "ok", "flaky", "heartbeat", "snooze", "invalid", "ok", "ok" };
			for (int i = 0; i < this.jobs; i++) {
				String kind = kindsInTurn[i % kindsInTurn.length];
				if (i % 5 == 4) {
					enqueueUntilDone(queue, List.of(JobRequest.of(kind, i), JobRequest.of("ok", 100 + i)),
							List.of(kind, "ok"));
				}
				else {
					enqueueUntilDone(queue, List.of(JobRequest.of(kind, i)), List.of(kind));
				}
			}
			List<Long> ids = new ArrayList<>(this.kinds.keySet());
			ids.sort(null);
			if (ids.size() > 9) {
				for (long id : List.of(ids.get(2), ids.get(9))) {
					cancelUntilDone(queue, id);
				}
			}
			for (int round = 0; round < 200; round++) {
				if (round == 100) {
					this.faults.enabled(false);
				}
				this.clock.advance(Duration.ofSeconds(2));
				try {
					worker.pollOnce();
				}
				catch (RuntimeException ex) {
					this.operationErrors.add("poll: " + ex.getMessage());
				}
				assertConsistent("after poll " + round);
				if (unfinished() == 0 && worker.runningCount() == 0) {
					break;
				}
			}
			assertThat(unfinished()).as("jobs not final").isZero();
			for (Map.Entry<Long, String> job : this.kinds.entrySet()) {
				long id = job.getKey();
				String status = string("SELECT status FROM jobs WHERE id = " + id);
				if (this.cancelled.contains(id)) {
					assertThat(status).as("cancelled job %d", id).isIn("cancelled", "succeeded", "failed");
					continue;
				}
				if (job.getValue().equals("invalid")) {
					assertThat(status).as("job %d", id).isEqualTo("failed");
					assertThat(string("SELECT error_code FROM jobs WHERE id = " + id)).isEqualTo("INVALID_INPUT:TEST");
					continue;
				}
				assertThat(status).as("job %d (%s)", id, job.getValue()).isEqualTo("succeeded");
				assertThat(this.completedBodies.get(id)).as("handler of job %d completed", id).isNotNull();
				assertThat(this.completedBodies.get(id).get()).as("handler of job %d completed once", id).isEqualTo(1);
			}
			assertThat(JobRows.count(this.file,
					"SELECT count(*) FROM job_attempts WHERE error_code LIKE '%JobQueueException%'"))
				.as("no database fault is recorded as the job's own failure")
				.isZero();
		}

		private HandlerRegistry handlers() {
			HandlerRegistry handlers = new HandlerRegistry();
			handlers.register(HandlerDefinition.of("ok", (payload, context) -> completed(context.jobId())));
			handlers.register(HandlerDefinition.of("flaky", (payload, context) -> {
				if (context.attempt() == 1) {
					throw new IllegalStateException("first attempt fails");
				}
				return completed(context.jobId());
			}));
			handlers.register(HandlerDefinition.of("heartbeat", (payload, context) -> {
				context.heartbeat();
				context.heartbeat();
				return completed(context.jobId());
			}));
			handlers.register(HandlerDefinition.of("snooze", (payload, context) -> {
				if (JobRows.count(this.file, "SELECT snoozes FROM jobs WHERE id = " + context.jobId()) == 0) {
					context.snooze(Duration.ofSeconds(3));
				}
				return completed(context.jobId());
			}));
			handlers.register(HandlerDefinition.of("invalid", (payload, context) -> {
				throw new InvalidJobInputException("TEST", "never works", null);
			}));
			return handlers;
		}

		private Object completed(long id) {
			this.completedBodies.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
			return "done";
		}

		/**
		 * Enqueues, trying again after a failure as a caller would; the batch lands whole
		 * or not at all.
		 */
		private void enqueueUntilDone(DefaultJobQueue queue, List<JobRequest> requests, List<String> kinds) {
			for (int tries = 0; tries < 50; tries++) {
				long before = JobRows.count(this.file, "SELECT count(*) FROM jobs");
				try {
					List<Long> ids = queue.enqueueAll(requests);
					assertThat(JobRows.count(this.file, "SELECT count(*) FROM jobs"))
						.isEqualTo(before + requests.size());
					for (int i = 0; i < ids.size(); i++) {
						this.kinds.put(ids.get(i), kinds.get(i));
					}
					assertConsistent("after enqueue");
					return;
				}
				catch (RuntimeException ex) {
					this.operationErrors.add("enqueue: " + ex.getMessage());
					long after = JobRows.count(this.file, "SELECT count(*) FROM jobs");
					assertThat(after).as("a failed enqueue writes all or nothing")
						.isIn(before, before + requests.size());
					assertConsistent("after failed enqueue");
					if (after != before) {
						// The commit went through but its reply was lost: the jobs exist;
						// adopt them.
						List<Object> ids = column("SELECT id FROM jobs ORDER BY id DESC LIMIT " + requests.size());
						for (int i = 0; i < ids.size(); i++) {
							this.kinds.put(((Number) ids.get(i)).longValue(), kinds.get(ids.size() - 1 - i));
						}
						return;
					}
				}
			}
			throw new AssertionError("enqueue never succeeded");
		}

		private void cancelUntilDone(DefaultJobQueue queue, long id) {
			for (int tries = 0; tries < 50; tries++) {
				try {
					queue.cancel(id);
					this.cancelled.add(id);
					assertConsistent("after cancel");
					return;
				}
				catch (RuntimeException ex) {
					this.operationErrors.add("cancel: " + ex.getMessage());
					assertConsistent("after failed cancel");
					if ("cancelled".equals(string("SELECT status FROM jobs WHERE id = " + id))) {
						this.cancelled.add(id);
						return;
					}
				}
			}
			throw new AssertionError("cancel never succeeded");
		}

		private void assertConsistent(String when) {
			assertThat(Invariants.violations(this.file)).as(when).isEmpty();
		}

		private long unfinished() {
			return JobRows.count(this.file, "SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')");
		}

		private String string(String sql) {
			return (String) column(sql).get(0);
		}

		private List<Object> column(String sql) {
			try (java.sql.Connection connection = java.sql.DriverManager.getConnection("jdbc:sqlite:" + this.file);
					java.sql.Statement statement = connection.createStatement();
					java.sql.ResultSet rows = statement.executeQuery(sql)) {
				List<Object> values = new ArrayList<>();
				while (rows.next()) {
					values.add(rows.getObject(1));
				}
				return values;
			}
			catch (java.sql.SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
