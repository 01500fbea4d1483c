package dev.jobqueue.benchmarks;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;

import dev.jobqueue.JobQueue;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.JobInvoker;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.DefaultErrorClassifier;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.core.worker.WorkerSettings;
import dev.jobqueue.postgresql.PostgresDataSources;
import dev.jobqueue.postgresql.PostgresDatabase;
import dev.jobqueue.postgresql.PostgresDialect;
import dev.jobqueue.postgresql.PostgresStorage;

/**
 * The queue on PostgreSQL next to hand-written JDBC on the same server, in the same run:
 * single enqueue, burn-down at 8 workers against a raw batched lifecycle
 * ({@code FOR UPDATE SKIP LOCKED}, 100 per claim, 8 threads) on lean tables (the ceiling)
 * and on the queue's own, and against db-scheduler; one against two worker processes, and
 * enqueue-to-start latency from another process (woken by {@code NOTIFY}; the worker
 * polls only every second). Each measurement gets a database of its own, dropped
 * afterwards. Prints a Markdown table.
 *
 * <p>
 * The single-enqueue and burn-down rows measure the queue as the bare engine
 * ({@link Node}: store, worker and pool, no Spring) and through the starter
 * ({@link StarterNode}: a Spring Boot application with its {@code @JobHandler} bean, as
 * users run it), both by default; {@code --stacks=engine} or {@code --stacks=starter}
 * picks one. The process and latency rows are the engine's.
 *
 * <pre>
 * java [-Dbench.jobs=20000] [-Dbench.enqueues=3000] -cp benchmarks/target/benchmarks.jar \
 *     dev.jobqueue.benchmarks.PostgresBenchmarkMain [--quick] [--stacks=engine,starter] \
 *     [--admin-url=jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres]
 * </pre>
 *
 * With {@code --scenario=dashboard} it renders the dashboard's overview on a big table
 * instead ({@link PostgresDashboardScenario}); with {@code --scenario=flow} it prints the
 * flow control rows of issue 25 ({@link FlowScenario}, through each of {@code --stacks},
 * sized by the SQLite run's options {@link #FLOW_OPTIONS}).
 *
 * <p>
 * With {@code worker <url> <threads>} or {@code enqueuer <url> <count> <perSecond>} as
 * arguments it is the child process of the multi-process rows.
 *
 * <p>
 * Over 400 lines: the PostgreSQL run is one program (raw baselines, queue scenarios, the
 * second process), kept in one file so it can be read beside the table it prints.
 */
public final class PostgresBenchmarkMain {

	private static final String TYPE = "noop";

	static final String RAW_ENQUEUE = """
			WITH job AS (INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at)
				VALUES ('noop', 'pending', 0, ?, 5, ?, ?) RETURNING id)
			INSERT INTO job_events (job_id, at, event) SELECT id, ?, 'ENQUEUED' FROM job RETURNING job_id
			""";

	private static final String RAW_CLAIM = """
			WITH picked AS (
				SELECT id FROM jobs WHERE status = 'pending' AND run_at <= now()
				ORDER BY priority DESC, run_at, id LIMIT 100 FOR UPDATE SKIP LOCKED),
			claimed AS (
				UPDATE jobs j SET status = 'running', runs = j.runs + 1, attempts = j.attempts + 1, started_at = now(),
					worker_id = ?, heartbeat_at = now(), lease_until = now() + interval '60 seconds'
				FROM picked WHERE j.id = picked.id RETURNING j.id, j.runs, j.attempts),
			attempt AS (
				INSERT INTO job_attempts (job_id, run, attempt, worker_id, started_at)
				SELECT id, runs, attempts, ?, now() FROM claimed),
			event AS (INSERT INTO job_events (job_id, at, event) SELECT id, now(), 'CLAIMED' FROM claimed)
			SELECT id, runs FROM claimed
			""";

	private static final String RAW_COMPLETE = """
			WITH done AS (
				UPDATE jobs j SET status = 'succeeded', finished_at = now(), lease_until = NULL
				FROM unnest(?::bigint[], ?::int[]) AS o(id, run)
				WHERE j.id = o.id AND j.runs = o.run AND j.status = 'running' RETURNING j.id, j.runs),
			attempt AS (
				UPDATE job_attempts a SET outcome = 'SUCCEEDED', finished_at = now()
				FROM done WHERE a.job_id = done.id AND a.run = done.runs),
			event AS (INSERT INTO job_events (job_id, at, event) SELECT id, now(), 'SUCCEEDED' FROM done)
			SELECT count(*) FROM done
			""";

	/** The options of the flow control rows, as the SQLite run names them. */
	static final List<String> FLOW_OPTIONS = List.of("flow-jobs", "flow-keys", "flow-threads", "rate-per-second",
			"rate-seconds", "rate-backlog", "warm-up-jobs", "poll-interval-ms");

	/** The assemblies of the queue {@code --stacks} can name. */
	static final List<String> STACKS = List.of("engine", "starter");

	private final String adminUrl;

	private final boolean quick;

	/** Pending jobs of one burn-down. */
	private final int jobs;

	/** Jobs of one single-enqueue measurement. */
	private final int enqueues;

	/** Which of {@link #STACKS} the single-enqueue and burn-down rows measure. */
	private final List<String> stacks;

	private final List<String[]> rows = new ArrayList<>();

	PostgresBenchmarkMain(String adminUrl, boolean quick, int jobs, int enqueues, List<String> stacks) {
		this.adminUrl = adminUrl;
		this.quick = quick;
		this.jobs = jobs;
		this.enqueues = enqueues;
		this.stacks = stacks;
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals("worker")) {
			runWorker(args[1], Integer.parseInt(args[2]), Duration.ofSeconds(1));
			return;
		}
		if (args.length > 0 && args[0].equals("enqueuer")) {
			runEnqueuer(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
			return;
		}
		String adminUrl = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
		boolean quick = false;
		boolean fanOut = false;
		boolean flow = false;
		boolean burnDownOnly = false;
		boolean processesOnly = false;
		boolean dashboard = false;
		List<String> stacks = STACKS;
		List<String> scenarioOptions = new ArrayList<>();
		for (String arg : args) {
			if (arg.startsWith("--admin-url=")) {
				adminUrl = arg.substring("--admin-url=".length());
			}
			else if (arg.equals("--quick")) {
				quick = true;
				scenarioOptions.add(arg);
			}
			else if (arg.equals("--scenario=fan-out")) {
				fanOut = true;
			}
			else if (arg.equals("--scenario=flow")) {
				flow = true;
			}
			else if (arg.equals("--scenario=burn-down")) {
				burnDownOnly = true;
			}
			else if (arg.equals("--scenario=processes")) {
				processesOnly = true;
			}
			else if (arg.equals("--scenario=dashboard")) {
				dashboard = true;
			}
			else if (arg.startsWith("--stacks=")) {
				stacks = Options.parseStacks(arg.substring("--stacks=".length()), STACKS);
			}
			else if (arg.startsWith("--fan-out-children=") || arg.startsWith("--repeat=")
					|| FLOW_OPTIONS.stream().anyMatch((option) -> arg.startsWith("--" + option + "="))) {
				scenarioOptions.add(arg);
			}
			else {
				throw new IllegalArgumentException("Unknown option " + arg + ": use --quick, --admin-url=<jdbc url>, "
						+ "--stacks=engine,starter (or one of them) for the enqueue and burn-down rows, "
						+ "--scenario=burn-down or --scenario=processes for those rows alone, --scenario=dashboard for the "
						+ "dashboard on a big table, --scenario=fan-out [--fan-out-children=N] "
						+ "[--repeat=N] for the fan-out run alone, and --scenario=flow [--stacks=...] [--"
						+ String.join("=N] [--", FLOW_OPTIONS) + "=N] [--repeat=N] for the flow control rows");
			}
		}
		if (fanOut) {
			runFanOut(adminUrl, scenarioOptions);
			return;
		}
		if (flow) {
			Options options = Options.parse(scenarioOptions.toArray(String[]::new));
			ResultTable table = runFlow(adminUrl, options, stacks);
			System.out.println("jobqueue benchmark on PostgreSQL: " + BenchmarkMain.describeFlow(options) + ", stacks "
					+ stacks + ", Java " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors()
					+ " cores");
			System.out.println();
			table.print(System.out);
			return;
		}
		if (dashboard) {
			new PostgresDashboardScenario(adminUrl, quick).run();
			return;
		}
		PostgresBenchmarkMain benchmark = new PostgresBenchmarkMain(adminUrl, quick,
				Integer.getInteger("bench.jobs", quick ? 2_000 : 20_000),
				Integer.getInteger("bench.enqueues", quick ? 300 : 3_000), stacks);
		if (burnDownOnly || processesOnly) {
			if (burnDownOnly) {
				benchmark.burnDowns();
			}
			if (processesOnly) {
				benchmark.processes();
			}
			benchmark.print(System.out);
			return;
		}
		benchmark.run();
	}

	private void run() throws Exception {
		singleEnqueues();
		burnDowns();
		processes();
		System.err.println("latency...");
		double[] latency = crossProcessLatency(this.quick ? 100 : 600, 50);
		this.rows.add(new String[] { "enqueue in another process -> handler starts, worker polls every 1 s (ms)", "",
				String.format(Locale.ROOT, "p50 %.1f, p99 %.1f, max %.1f", latency[0], latency[1], latency[2]), "" });
		print(System.out);
	}

	/**
	 * Single enqueues from one thread, raw and through each stack chosen; round by round,
	 * so a slow phase of the machine hits every one alike. The best round counts.
	 */
	void singleEnqueues() throws Exception {
		System.err.println("single enqueue...");
		double raw = 0;
		double engine = 0;
		double starter = 0;
		for (int round = 0; round < 3; round++) {
			raw = Math.max(raw, rawEnqueue(this.enqueues));
			if (this.stacks.contains("engine")) {
				engine = Math.max(engine, queueEnqueue(this.enqueues));
			}
			if (this.stacks.contains("starter")) {
				starter = Math.max(starter, starterEnqueue(this.enqueues));
			}
		}
		String baseline = " vs raw: job row + event in one statement, auto-commit (jobs/s)";
		if (this.stacks.contains("engine")) {
			row("single enqueue, 1 thread, bare engine" + baseline, raw, engine);
		}
		if (this.stacks.contains("starter")) {
			row("single enqueue, 1 thread, the starter's JobQueue bean" + baseline, raw, starter);
		}
	}

	/**
	 * One worker process against two on one database; each child is a JVM of its own,
	 * whose start counts: the row says more with more jobs ({@code -Dbench.jobs}).
	 */
	private void processes() throws Exception {
		System.err.println("processes...");
		double oneProcess = processesBurnDown(this.jobs, 1, 8);
		double twoProcesses = processesBurnDown(this.jobs, 2, 8);
		this.rows.add(new String[] { "burn-down, 2 processes x 8 workers vs 1 process x 8 (jobs/s)",
				format(oneProcess) + " (1 process)", format(twoProcesses) + " (2 processes)",
				String.format(Locale.ROOT, "%.2fx", twoProcesses / oneProcess) });
	}

	/**
	 * The burn-down rows: each stack chosen, raw on the queue's tables and db-scheduler
	 * against the ceiling (the raw lifecycle on lean tables), and each stack against raw
	 * on its tables and db-scheduler. Round by round, every contender once per round, so
	 * a slow phase of the machine hits them alike; the best of 2 rounds counts.
	 */
	void burnDowns() throws Exception {
		System.err.println("burn-down, 8 workers...");
		int workers = 8;
		double rawLean = 0;
		double rawOnQueueTables = 0;
		double dbScheduler = 0;
		double engine = 0;
		double fixedClaimAhead = 0;
		double starter = 0;
		for (int round = 0; round < 2; round++) {
			rawLean = Math.max(rawLean, rawLifecycle(this.jobs, workers, true));
			rawOnQueueTables = Math.max(rawOnQueueTables, rawLifecycle(this.jobs, workers, false));
			dbScheduler = Math.max(dbScheduler, dbSchedulerBurnDown(this.jobs, workers));
			if (this.stacks.contains("engine")) {
				engine = Math.max(engine, queueBurnDown(this.jobs, workers, null));
				fixedClaimAhead = Math.max(fixedClaimAhead,
						queueBurnDown(this.jobs, workers, WorkerSettings.defaultClaimAhead(workers)));
			}
			if (this.stacks.contains("starter")) {
				starter = Math.max(starter, starterBurnDown(this.jobs, workers));
			}
		}
		String burnDown = String.format(Locale.ROOT, "burn-down of %,d, %d workers", this.jobs, workers);
		row(burnDown + ": raw lifecycle 100/claim, 8 threads, on the queue's tables vs the ceiling, the same on lean "
				+ "tables: primary keys and the partial pending index (jobs/s)", rawLean, rawOnQueueTables);
		row(burnDown + ": db-scheduler 16.7.1, lock-and-fetch (1.0, 4.0), 8 threads vs the ceiling (jobs/s)", rawLean,
				dbScheduler);
		for (String stack : this.stacks) {
			double queue = stack.equals("engine") ? engine : starter;
			String measured = burnDown + ", " + (stack.equals("engine") ? "bare engine (its store, worker and pool)"
					: "through the starter (Spring Boot application, @JobHandler bean, default pool)");
			row(measured + " vs the ceiling (jobs/s)", rawLean, queue);
			row(measured + " vs raw lifecycle on the queue's tables (jobs/s)", rawOnQueueTables, queue);
			row(measured + " vs db-scheduler (jobs/s)", dbScheduler, queue);
		}
		if (this.stacks.contains("engine") && this.stacks.contains("starter")) {
			row(burnDown + ": through the starter vs bare engine, same run (jobs/s)", engine, starter);
		}
		if (this.stacks.contains("engine")) {
			row(burnDown + ", bare engine: claim-ahead following the pace (the default) vs fixed at its floor, 128 "
					+ "(jobs/s)", fixedClaimAhead, engine);
		}
	}

	/**
	 * The fan-out scenario of the SQLite run ({@link FanOutScenario}) on PostgreSQL: each
	 * run on a database of its own.
	 */
	private static void runFanOut(String adminUrl, List<String> options) throws Exception {
		ResultTable table = new ResultTable();
		FanOutScenario.Backend backend = new FanOutScenario.Backend() {
			@Override
			public String label() {
				return "PostgreSQL";
			}

			@Override
			public FanOutScenario.Node open(String name, JobInvoker handler) throws Exception {
				TempDatabase db = new TempDatabase(adminUrl);
				Node node = new Node(db.url, 8, handler);
				return new FanOutScenario.Node() {
					private JobWorker worker;

					@Override
					public JobQueue queue() {
						return node.queue;
					}

					@Override
					public void startWorker(int threads, Duration pollInterval, WorkerListener listener) {
						this.worker = node.worker(threads, pollInterval, listener);
						this.worker.start();
					}

					@Override
					public void stopWorker() {
						if (this.worker != null) {
							this.worker.stop();
							this.worker = null;
						}
					}

					@Override
					public void close() throws Exception {
						stopWorker();
						node.close();
						db.close();
					}
				};
			}
		};
		new FanOutScenario(Options.parse(options.toArray(String[]::new)), table, backend).run();
		System.out.println("jobqueue benchmark on PostgreSQL: fan-out " + options + ", Java " + Runtime.version() + ", "
				+ Runtime.getRuntime().availableProcessors() + " cores");
		System.out.println();
		table.print(System.out);
	}

	/**
	 * The flow control rows of the SQLite run ({@link FlowScenario}) on PostgreSQL: each
	 * run on a database of its own, through each stack of {@code stacks}.
	 */
	static ResultTable runFlow(String adminUrl, Options options, List<String> stacks) throws Exception {
		ResultTable table = new ResultTable();
		FlowScenario.Backend backend = new FlowScenario.Backend() {
			@Override
			public String label() {
				return "PostgreSQL";
			}

			@Override
			public FlowScenario.Node open(String name, String stack, FlowHandlers.Limits limits, int perSecond,
					int threads, IntConsumer started, WorkerListener listener) throws Exception {
				TempDatabase db = new TempDatabase(adminUrl);
				try {
					return stack.equals("starter") ? starterFlowNode(db, limits, perSecond, threads, started, listener)
							: engineFlowNode(db, limits, perSecond, threads, started, listener);
				}
				catch (RuntimeException ex) {
					db.close();
					throw ex;
				}
			}

			private FlowScenario.Node starterFlowNode(TempDatabase db, FlowHandlers.Limits limits, int perSecond,
					int threads, IntConsumer started, WorkerListener listener) {
				StarterNode node = new StarterNode(db.url, limits.bean, limits.properties(perSecond), threads,
						options.pollInterval, (payload, context) -> started.accept(payload.n()), listener);
				return new PostgresFlowNode(db, node.queue, node::startWorker, node);
			}

			private FlowScenario.Node engineFlowNode(TempDatabase db, FlowHandlers.Limits limits, int perSecond,
					int threads, IntConsumer started, WorkerListener listener) {
				Node node = new Node(db.url, threads + 2, limits.definition(perSecond, (payload, context) -> {
					started.accept(((Payload) QueueNode.CODEC.fromJson(payload, Payload.class)).n());
					return null;
				}));
				JobWorker[] worker = new JobWorker[1];
				return new PostgresFlowNode(db, node.queue, () -> {
					worker[0] = node.worker(threads, options.pollInterval, listener);
					worker[0].start();
				}, () -> {
					if (worker[0] != null) {
						worker[0].stop();
					}
					node.close();
				});
			}
		};
		new FlowScenario(options, stacks, table, backend).run();
		return table;
	}

	/** A flow run's queue on its own database, dropped on close. */
	private record PostgresFlowNode(TempDatabase db, JobQueue queue, Runnable start,
			AutoCloseable stack) implements FlowScenario.Node {

		@Override
		public void startWorker() {
			this.start.run();
		}

		@Override
		public long[] claimTimesMicros() throws SQLException {
			try (Connection connection = DriverManager.getConnection(this.db.url);
					Statement statement = connection.createStatement();
					ResultSet rows = statement
						.executeQuery("SELECT (extract(epoch FROM started_at) * 1000000)::bigint FROM job_attempts")) {
				List<Long> micros = new ArrayList<>();
				while (rows.next()) {
					micros.add(rows.getLong(1));
				}
				return micros.stream().mapToLong(Long::longValue).toArray();
			}
		}

		@Override
		public void close() throws Exception {
			try {
				this.stack.close();
			}
			finally {
				this.db.close();
			}
		}

	}

	private double rawEnqueue(int jobs) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl);
				Connection connection = DriverManager.getConnection(db.url);
				PreparedStatement insert = connection.prepareStatement(RAW_ENQUEUE)) {
			long started = System.nanoTime();
			for (int i = 0; i < jobs; i++) {
				Timestamp now = Timestamp.from(Instant.now());
				insert.setString(1, "{\"n\":" + i + "}");
				insert.setTimestamp(2, now);
				insert.setTimestamp(3, now);
				insert.setTimestamp(4, now);
				try (ResultSet rows = insert.executeQuery()) {
					rows.next();
				}
			}
			return perSecond(jobs, started);
		}
	}

	private double queueEnqueue(int jobs) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl); Node node = new Node(db.url, 4)) {
			long started = System.nanoTime();
			for (int i = 0; i < jobs; i++) {
				node.queue.enqueue(TYPE, new Payload(i));
			}
			return perSecond(jobs, started);
		}
	}

	/**
	 * Single enqueues through the {@code JobQueue} bean of a starter application with the
	 * queue's own pool, its worker off.
	 */
	private double starterEnqueue(int jobs) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl);
				StarterNode node = new StarterNode(db.url, 0, Duration.ofSeconds(1), (payload, context) -> {
				}, WorkerListener.NONE)) {
			long started = System.nanoTime();
			for (int i = 0; i < jobs; i++) {
				node.queue.enqueue(TYPE, new Payload(i));
			}
			return perSecond(jobs, started);
		}
	}

	private double rawLifecycle(int jobs, int threads, boolean lean) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl)) {
			if (lean) {
				JobCostMain.dropAllButLeanIndexes(db.url);
			}
			db.fill(jobs);
			AtomicLong done = new AtomicLong();
			ExecutorService pool = Executors.newFixedThreadPool(threads);
			List<Connection> connections = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				connections.add(DriverManager.getConnection(db.url));
			}
			CountDownLatch finished = new CountDownLatch(threads);
			long started = System.nanoTime();
			for (Connection connection : connections) {
				pool.execute(() -> {
					try {
						rawWorkerLoop(connection, done);
					}
					catch (SQLException ex) {
						ex.printStackTrace();
					}
					finally {
						finished.countDown();
					}
				});
			}
			finished.await();
			double rate = perSecond(jobs, started);
			pool.shutdown();
			for (Connection connection : connections) {
				connection.close();
			}
			if (done.get() != jobs) {
				throw new IllegalStateException("raw lifecycle finished " + done.get() + " of " + jobs);
			}
			return rate;
		}
	}

	static void rawWorkerLoop(Connection connection, AtomicLong done) throws SQLException {
		String worker = "raw-" + Thread.currentThread().getId();
		connection.setAutoCommit(false);
		try (PreparedStatement claim = connection.prepareStatement(RAW_CLAIM);
				PreparedStatement complete = connection.prepareStatement(RAW_COMPLETE)) {
			while (true) {
				List<Long> ids = new ArrayList<>();
				List<Integer> runs = new ArrayList<>();
				claim.setString(1, worker);
				claim.setString(2, worker);
				try (ResultSet rows = claim.executeQuery()) {
					while (rows.next()) {
						ids.add(rows.getLong(1));
						runs.add(rows.getInt(2));
					}
				}
				connection.commit();
				if (ids.isEmpty()) {
					return;
				}
				Array idArray = connection.createArrayOf("bigint", ids.toArray());
				Array runArray = connection.createArrayOf("integer", runs.toArray());
				complete.setArray(1, idArray);
				complete.setArray(2, runArray);
				try (ResultSet rows = complete.executeQuery()) {
					rows.next();
					done.addAndGet(rows.getLong(1));
				}
				connection.commit();
			}
		}
	}

	/**
	 * @param claimAhead a fixed claim-ahead bound, or {@code null} for the default, which
	 * follows the worker's pace
	 */
	private double queueBurnDown(int jobs, int workers, Integer claimAhead) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl)) {
			db.fill(jobs);
			CountDownLatch finished = new CountDownLatch(jobs);
			try (Node node = new Node(db.url, workers + 2)) {
				long started = System.nanoTime();
				JobWorker worker = node.worker(workers, Duration.ofSeconds(1), claimAhead, new WorkerListener() {
					@Override
					public void finished(ClaimedJob job, Completion completion, Duration queueWait,
							Duration execution) {
						finished.countDown();
					}
				});
				worker.start();
				if (!finished.await(10, TimeUnit.MINUTES)) {
					throw new IllegalStateException("burn-down did not finish");
				}
				double rate = perSecond(jobs, started);
				worker.stop();
				return rate;
			}
		}
	}

	/**
	 * The burn-down through the starter: a Spring Boot application on the database, its
	 * worker (with the meters and observation of each run) started once the pending jobs
	 * are in; jobs/s from its start until the last outcome.
	 */
	private double starterBurnDown(int jobs, int workers) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl)) {
			db.fill(jobs);
			CountDownLatch finished = new CountDownLatch(jobs);
			try (StarterNode node = new StarterNode(db.url, workers, Duration.ofSeconds(1), (payload, context) -> {
			}, new WorkerListener() {
				@Override
				public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
					finished.countDown();
				}
			})) {
				long started = System.nanoTime();
				node.startWorker();
				if (!finished.await(10, TimeUnit.MINUTES)) {
					throw new IllegalStateException("starter burn-down did not finish");
				}
				return perSecond(jobs, started);
			}
		}
	}

	/**
	 * db-scheduler on a database of its own: one-time tasks inserted set-based as the
	 * queue's backlog is, then its scheduler with lock-and-fetch polling and 8 threads;
	 * jobs/s from its start until every task ran. It deletes a task when it is done and
	 * keeps no history.
	 */
	private double dbSchedulerBurnDown(int jobs, int threads) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl);
				HikariDataSource dataSource = PostgresDataSources.create(db.url, null, null, threads + 4)) {
			try (Connection connection = dataSource.getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute(DB_SCHEDULER_TABLE);
				statement
					.execute("CREATE INDEX scheduled_tasks_execution_time_idx ON scheduled_tasks (execution_time)");
				statement
					.execute("CREATE INDEX scheduled_tasks_last_heartbeat_idx ON scheduled_tasks (last_heartbeat)");
				statement.execute("CREATE INDEX scheduled_tasks_priority_execution_time_idx "
						+ "ON scheduled_tasks (priority DESC, execution_time)");
				statement.execute("INSERT INTO scheduled_tasks (task_name, task_instance, execution_time, picked, "
						+ "consecutive_failures, version, priority) SELECT 'noop', 'n' || g, now() - interval '1 second' "
						+ "+ g * interval '1 microsecond', false, 0, 1, 0 FROM generate_series(1, " + jobs + ") g");
				statement.execute("VACUUM ANALYZE scheduled_tasks");
			}
			CountDownLatch finished = new CountDownLatch(jobs);
			OneTimeTask<Void> task = Tasks.oneTime("noop").execute((instance, context) -> finished.countDown());
			Scheduler scheduler = Scheduler.create(dataSource, task)
				.threads(threads)
				.pollUsingLockAndFetch(1.0, 4.0)
				.pollingInterval(Duration.ofSeconds(1))
				.build();
			long started = System.nanoTime();
			scheduler.start();
			if (!finished.await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException("db-scheduler burn-down did not finish");
			}
			double rate = perSecond(jobs, started);
			scheduler.stop();
			return rate;
		}
	}

	/** db-scheduler's table on PostgreSQL, with the columns its 16.x releases read. */
	private static final String DB_SCHEDULER_TABLE = """
			CREATE TABLE scheduled_tasks (
			    task_name            text        NOT NULL,
			    task_instance        text        NOT NULL,
			    task_data            bytea,
			    execution_time       timestamptz NOT NULL,
			    picked               boolean     NOT NULL,
			    picked_by            text,
			    last_success         timestamptz,
			    last_failure         timestamptz,
			    consecutive_failures integer,
			    last_heartbeat       timestamptz,
			    version              bigint      NOT NULL,
			    priority             smallint,
			    PRIMARY KEY (task_name, task_instance)
			)
			""";

	/**
	 * Worker JVMs on one database; jobs/s from their start until no job is left pending
	 * or running.
	 */
	private double processesBurnDown(int jobs, int processes, int workers) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl)) {
			db.fill(jobs);
			List<Process> children = new ArrayList<>();
			long started = System.nanoTime();
			for (int i = 0; i < processes; i++) {
				children.add(child("worker", db.url, String.valueOf(workers)));
			}
			try (Connection connection = DriverManager.getConnection(db.url);
					PreparedStatement left = connection
						.prepareStatement("SELECT count(*) FROM jobs WHERE status <> 'succeeded'")) {
				while (true) {
					try (ResultSet rows = left.executeQuery()) {
						rows.next();
						if (rows.getLong(1) == 0) {
							break;
						}
					}
					Thread.sleep(20);
				}
			}
			double rate = perSecond(jobs, started);
			for (Process child : children) {
				child.destroy();
				child.waitFor(30, TimeUnit.SECONDS);
			}
			return rate;
		}
	}

	/**
	 * A worker in this JVM that polls every second; another JVM enqueues at a steady
	 * pace, each payload carrying the wall-clock time its commit returned. The handler
	 * notes how long ago that was.
	 */
	private double[] crossProcessLatency(int jobs, int perSecond) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl); Node node = new Node(db.url, 6)) {
			ConcurrentLinkedQueue<Double> latencies = new ConcurrentLinkedQueue<>();
			CountDownLatch finished = new CountDownLatch(jobs);
			node.handlers.register(HandlerDefinition.of("timed", (payload, context) -> {
				long sentMicros = Long.parseLong(payload.replace("\"", ""));
				Instant now = Instant.now();
				long nowMicros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
				latencies.add((nowMicros - sentMicros) / 1000.0);
				finished.countDown();
				return null;
			}));
			JobWorker worker = node.worker(4, Duration.ofSeconds(1), WorkerListener.NONE);
			node.storage.signals(worker);
			worker.start();
			Process enqueuer = child("enqueuer", db.url, String.valueOf(jobs), String.valueOf(perSecond));
			if (!finished.await(5, TimeUnit.MINUTES)) {
				throw new IllegalStateException("latency run did not finish");
			}
			enqueuer.waitFor(30, TimeUnit.SECONDS);
			worker.stop();
			List<Double> sorted = new ArrayList<>(latencies);
			Collections.sort(sorted);
			return new double[] { sorted.get(sorted.size() / 2), sorted.get(sorted.size() * 99 / 100),
					sorted.get(sorted.size() - 1) };
		}
	}

	private static void runWorker(String url, int threads, Duration pollInterval) throws Exception {
		Node node = new Node(url, threads + 2);
		JobWorker worker = node.worker(threads, pollInterval, WorkerListener.NONE);
		node.storage.signals(worker);
		worker.start();
		Thread.sleep(Long.MAX_VALUE);
	}

	private static void runEnqueuer(String url, int jobs, int perSecond) throws Exception {
		try (Node node = new Node(url, 2)) {
			Thread.sleep(1_000);
			long intervalNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
			long next = System.nanoTime();
			for (int i = 0; i < jobs; i++) {
				while (System.nanoTime() < next) {
					Thread.onSpinWait();
				}
				next += intervalNanos;
				// The stamp is taken just before the call: the enqueue's own time counts
				// towards the latency.
				Instant now = Instant.now();
				node.queue.enqueue("timed", now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000);
			}
		}
	}

	private static Process child(String... args) throws Exception {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-cp",
						System.getProperty("java.class.path"), PostgresBenchmarkMain.class.getName()));
		command.addAll(List.of(args));
		return new ProcessBuilder(command).inheritIO().start();
	}

	private static double perSecond(long jobs, long startedNanos) {
		return jobs / ((System.nanoTime() - startedNanos) / 1e9);
	}

	private void row(String name, double raw, double queue) {
		this.rows
			.add(new String[] { name, format(raw), format(queue), String.format(Locale.ROOT, "%.2fx", queue / raw) });
	}

	private static String format(double value) {
		return String.format(Locale.ROOT, "%,.0f", value);
	}

	/** The rows so far as a Markdown table; the ratio is measured / baseline. */
	void print(PrintStream out) {
		out.println("| PostgreSQL scenario | baseline | measured | ratio |");
		out.println("|---|---|---|---|");
		for (String[] row : this.rows) {
			out.println("| " + String.join(" | ", row) + " |");
		}
	}

	/**
	 * The queue as an application has it, without Spring: own pool, store, queue; a
	 * worker on demand.
	 */
	static final class Node implements AutoCloseable {

		final HikariDataSource dataSource;

		final PostgresStorage storage;

		final HandlerRegistry handlers = new HandlerRegistry();

		final DefaultJobQueue queue;

		Node(String url, int poolSize) {
			this(url, poolSize, (payload, context) -> null);
		}

		Node(String url, int poolSize, JobInvoker handler) {
			this(url, poolSize, HandlerDefinition.of(TYPE, handler));
		}

		/**
		 * Handles the benchmark's type as {@code definition} says (with its flow
		 * control).
		 */
		Node(String url, int poolSize, HandlerDefinition definition) {
			this.dataSource = PostgresDataSources.create(url, null, null, poolSize);
			this.storage = new PostgresStorage(new PostgresDatabase(this.dataSource, url),
					PostgresDialect.tables(null, ""));
			this.storage.initializeSchema();
			this.handlers.register(definition);
			this.queue = new DefaultJobQueue(this.storage.jobs(), this.storage.admin(), QueueNode.CODEC, this.handlers,
					Clock.systemUTC(), new EnqueueLimits(5, 1 << 20), null);
		}

		JobWorker worker(int concurrency, Duration pollInterval, WorkerListener listener) {
			return worker(concurrency, pollInterval, null, listener);
		}

		JobWorker worker(int concurrency, Duration pollInterval, Integer claimAhead, WorkerListener listener) {
			WorkerSettings defaults = new WorkerSettings(WorkerIds.newId(), concurrency, pollInterval,
					Duration.ofSeconds(60), Duration.ofSeconds(5), 10);
			WorkerSettings settings = (claimAhead != null) ? defaults.withClaimAhead(claimAhead) : defaults;
			JobWorker worker = new JobWorker(this.storage.jobs(), this.handlers, QueueNode.CODEC,
					new DefaultErrorClassifier(),
					new RetryPolicy(Duration.ofSeconds(1), Duration.ofMinutes(1), Math::random), Clock.systemUTC(),
					settings, QueueNode.executor(concurrency, false), listener, null);
			this.storage.signals(worker);
			return worker;
		}

		@Override
		public void close() {
			this.storage.close();
			this.dataSource.close();
		}

	}

	/** A database of its own on the server, migrated by the queue, dropped on close. */
	static final class TempDatabase implements AutoCloseable {

		private static final AtomicLong counter = new AtomicLong();

		final String adminUrl;

		final String name;

		final String url;

		TempDatabase(String adminUrl) throws SQLException {
			this.adminUrl = adminUrl;
			this.name = "jobqueue_bench_" + ManagementFactory.getRuntimeMXBean().getPid() + "_"
					+ counter.incrementAndGet();
			this.url = adminUrl.replaceFirst("(jdbc:postgresql://[^/]+/)[^?]*", "$1" + this.name);
			admin("CREATE DATABASE " + this.name);
			// The queue's migrations create the tables, as in an application.
			new Node(this.url, 2).close();
		}

		/** Pending jobs, inserted set-based, then analysed as autovacuum would. */
		void fill(int jobs) throws SQLException {
			try (Connection connection = DriverManager.getConnection(this.url);
					Statement statement = connection.createStatement()) {
				statement.execute("INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at) "
						+ "SELECT 'noop', 'pending', '{\"n\":' || g || '}', 5, now() - interval '1 second' + g * "
						+ "interval '1 microsecond', now() FROM generate_series(1, " + jobs + ") g");
				statement.execute("VACUUM ANALYZE jobs");
			}
		}

		private void admin(String sql) throws SQLException {
			try (Connection connection = DriverManager.getConnection(this.adminUrl);
					Statement statement = connection.createStatement()) {
				statement.execute(sql);
			}
		}

		@Override
		public void close() throws SQLException {
			admin("DROP DATABASE IF EXISTS " + this.name + " WITH (FORCE)");
		}

	}

}
