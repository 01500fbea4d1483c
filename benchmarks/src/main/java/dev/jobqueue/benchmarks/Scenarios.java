package dev.jobqueue.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import dev.jobqueue.JobRequest;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.core.JobInvoker;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.dashboard.QueueDashboard;
import dev.jobqueue.sqlite.SqliteDatabase;

/**
 * The scenarios of a run; each adds its rows to the table.
 *
 * <p>
 * Over 400 lines: every SQLite scenario of the table, each a short method, kept together
 * so a reader sees what a run measures in one file.
 */
final class Scenarios {

	private final Options options;

	private final ResultTable table;

	private final Path directory;

	/**
	 * Empty-table burn-down of the queue by executor and threads, for the big-table
	 * comparison.
	 */
	private final Map<String, Double> emptyBurnDown = new HashMap<>();

	/** Write transactions per job of the last queue burn-down. */
	private double lastCommitsPerJob;

	Scenarios(Options options, ResultTable table, Path directory) {
		this.options = options;
		this.table = table;
		this.directory = directory;
	}

	void runSelected() throws Exception {
		warmUp();
		if (this.options.runs("enqueue")) {
			progress("enqueue", this::enqueue);
		}
		if (this.options.runs("enqueue-all")) {
			progress("enqueue-all", this::enqueueAll);
		}
		if (this.options.runs("burn-down")) {
			progress("burn-down", this::burnDown);
		}
		if (this.options.runs("latency")) {
			progress("latency", this::latency);
		}
		if (this.options.runs("big-table")) {
			progress("big-table", this::bigTable);
		}
		if (this.options.runs("idle")) {
			progress("idle", this::idle);
		}
		if (this.options.runs("heap")) {
			progress("heap", this::heap);
		}
		if (this.options.runs("durability")) {
			progress("durability", this::durability);
		}
		if (this.options.runs("dashboard")) {
			progress("dashboard", this::dashboard);
		}
		if (this.options.runs("steps")) {
			progress("steps", this::steps);
		}
		if (this.options.runs("fan-out")) {
			progress("fan-out", () -> new FanOutScenario(this.options, this.table, this.directory).run());
		}
		if (this.options.runs("flow")) {
			progress("flow", () -> new FlowScenario(this.options, this.table, this.directory).run());
		}
	}

	/**
	 * Small runs of every code path first, so the measured runs see compiled code, not
	 * the interpreter.
	 */
	private void warmUp() throws Exception {
		long start = System.nanoTime();
		for (int round = 0; round < (this.options.quick ? 1 : 2); round++) {
			int n = this.options.warmUpJobs;
			withDb("warm-up", "NORMAL", (db) -> Raw.singleInserts(db, 2, n));
			withDb("warm-up", "NORMAL", (db) -> Raw.batchedInserts(db, 1_000, Math.max(1, n / 1_000)));
			withDb("warm-up", "NORMAL", (db) -> {
				db.seedPending(QueueNode.TYPE, n);
				Raw.lifecycle(db, 2, this.options.rawBatch);
				db.seedPending(QueueNode.TYPE, n / 3);
				return Raw.lifecycle(db, 1, 1);
			});
			withDb("warm-up", "NORMAL", (db) -> queueEnqueue(db, 2, n));
			withDb("warm-up", "NORMAL", (db) -> queueEnqueueAll(db, 1_000, Math.max(1, n / 1_000)));
			withDb("warm-up", "NORMAL", (db) -> {
				db.seedPending(QueueNode.TYPE, n);
				return queueBurnDown(db, 2, false);
			});
			if (this.options.stack("starter")) {
				withDb("warm-up", "NORMAL", (db) -> Raw.singleInserts(db, 2, n, false));
				withDb("warm-up", "NORMAL", (db) -> starterEnqueue(db, false, 2, n));
				withDb("warm-up", "NORMAL", (db) -> starterEnqueue(db, true, 2, n));
				withDb("warm-up", "NORMAL", (db) -> {
					db.seedPending(QueueNode.TYPE, n);
					return starterBurnDown(db, 2, false);
				});
			}
		}
		System.err.printf("warm-up done in %.1f s%n", (System.nanoTime() - start) / 1e9);
	}

	// ---- enqueue
	// -------------------------------------------------------------------------------------------

	private void enqueue() throws Exception {
		for (int threads : this.options.enqueueThreads) {
			int jobs = this.options.enqueueJobs;
			double rawWithEvent = 0;
			double rawJobOnly = 0;
			double rawLean = 0;
			double engine = 0;
			double starter = 0;
			double shared = 0;
			// Interleaved, so a slow phase of the machine hits every measurement alike.
			for (int round = 0; round < this.options.repeat; round++) {
				rawWithEvent = Math.max(rawWithEvent,
						withDb("enqueue-raw", "NORMAL", (db) -> Raw.singleInserts(db, threads, jobs, true)));
				rawJobOnly = Math.max(rawJobOnly,
						withDb("enqueue-raw-job", "NORMAL", (db) -> Raw.singleInserts(db, threads, jobs, false)));
				rawLean = Math.max(rawLean, withDb("enqueue-raw-lean", "NORMAL",
						(db) -> Raw.singleInserts(db.leanTables(), threads, jobs, false)));
				if (this.options.stack("engine")) {
					engine = Math.max(engine, withDb("enqueue", "NORMAL", (db) -> queueEnqueue(db, threads, jobs)));
				}
				if (this.options.stack("starter")) {
					starter = Math.max(starter,
							withDb("enqueue-starter", "NORMAL", (db) -> starterEnqueue(db, false, threads, jobs)));
				}
				if (this.options.stack("starter-shared")) {
					shared = Math.max(shared,
							withDb("enqueue-shared", "NORMAL", (db) -> starterEnqueue(db, true, threads, jobs)));
				}
			}
			String t = String.valueOf(threads);
			if (this.options.stack("engine")) {
				this.table.throughput("enqueue, 1 job per call (engine)", t, "enqueue(type, payload)", engine,
						rawWithEvent, RAW_JOB_AND_EVENT, 0.7);
				this.table.throughput("enqueue, 1 job per call (engine)", t, "enqueue(type, payload)", engine,
						rawJobOnly, RAW_JOB_ONLY, 0.5);
			}
			if (this.options.stack("starter")) {
				this.table.throughput("enqueue, 1 job per call (starter)", t, "JobQueue bean, enqueue(type, payload)",
						starter, rawWithEvent, RAW_JOB_AND_EVENT, 0.7);
				this.table.throughput("enqueue, 1 job per call (starter)", t, "JobQueue bean, enqueue(type, payload)",
						starter, rawJobOnly, RAW_JOB_ONLY, 0.5);
				this.table.throughput("enqueue, 1 job per call (starter)", t, "JobQueue bean, enqueue(type, payload)",
						starter, rawLean, RAW_LEAN_JOB_ONLY, 0.5);
			}
			if (this.options.stack("starter-shared")) {
				String scenario = "enqueue, 1 job per call (starter, application's DataSource)";
				this.table.throughput(scenario, t, "JobQueue bean, enqueue(type, payload)", shared, rawWithEvent,
						RAW_JOB_AND_EVENT, 0.7);
				this.table.throughput(scenario, t, "JobQueue bean, enqueue(type, payload)", shared, rawJobOnly,
						RAW_JOB_ONLY, 0.5);
			}
			stacksRow("enqueue, 1 job per call", t, starter, engine);
			if (shared > 0 && engine > 0) {
				// Not the same configuration as the engine's: the application's pool
				// checkpoints in its commits (see docs/benchmarks.md).
				this.table
					.add(new ResultTable.Row("enqueue, 1 job per call (application's DataSource): starter vs engine", t,
							"jobs/s", shared, "jobs/s", engine, "bare engine, same run", shared / engine, "", null));
			}
		}
	}

	private static final String RAW_JOB_AND_EVENT = "raw single insert, job row + event";

	private static final String RAW_JOB_ONLY = "raw single insert, job row only";

	private static final String RAW_LEAN_JOB_ONLY = "raw single insert, job row only, lean tables (the ceiling)";

	/** The starter's figure against the bare engine's of the same run: within 15 %. */
	private void stacksRow(String scenario, String threads, double starter, double engine) {
		if (starter <= 0 || engine <= 0) {
			return;
		}
		double ratio = starter / engine;
		this.table.add(new ResultTable.Row(scenario + ": starter vs engine", threads, "jobs/s", starter, "jobs/s",
				engine, "bare engine, same run", ratio, "within 15 %", ratio >= 0.85 && ratio <= 1 / 0.85));
	}

	private double starterEnqueue(Db db, boolean shared, int threads, int jobs) {
		try (StarterNode node = new StarterNode(db, shared, 0, false, this.options.pollInterval, (payload, context) -> {
		}, WorkerListener.NONE)) {
			return Timing.jobsPerSecond(jobs, Raw.runThreads(threads, (thread) -> () -> {
				for (int i = 0; i < Raw.share(jobs, threads, thread); i++) {
					node.queue.enqueue(QueueNode.TYPE, new Payload(i));
				}
				return null;
			}));
		}
	}

	private double queueEnqueue(Db db, int threads, int jobs) {
		try (QueueNode node = new QueueNode(db)) {
			return Timing.jobsPerSecond(jobs, Raw.runThreads(threads, (thread) -> () -> {
				for (int i = 0; i < Raw.share(jobs, threads, thread); i++) {
					node.queue.enqueue(QueueNode.TYPE, new Payload(i));
				}
				return null;
			}));
		}
	}

	private void enqueueAll() throws Exception {
		int size = this.options.enqueueAllSize;
		int calls = this.options.enqueueAllCalls;
		double raw = 0;
		double queue = 0;
		for (int round = 0; round < this.options.repeat; round++) {
			raw = Math.max(raw, withDb("enqueue-all-raw", "NORMAL", (db) -> Raw.batchedInserts(db, size, calls)));
			queue = Math.max(queue, withDb("enqueue-all", "NORMAL", (db) -> queueEnqueueAll(db, size, calls)));
		}
		this.table.throughput("enqueueAll of " + size, "1", "enqueueAll(list)", queue, raw,
				"raw batched insert, " + size + "/tx", 0.5);
	}

	private double queueEnqueueAll(Db db, int size, int calls) {
		List<List<JobRequest>> batches = new ArrayList<>();
		for (int c = 0; c < calls; c++) {
			List<JobRequest> batch = new ArrayList<>(size);
			for (int i = 0; i < size; i++) {
				batch.add(JobRequest.of(QueueNode.TYPE, new Payload(i)));
			}
			batches.add(batch);
		}
		try (QueueNode node = new QueueNode(db)) {
			return Timing.jobsPerSecond((long) size * calls, Raw.runThreads(1, (thread) -> () -> {
				for (List<JobRequest> batch : batches) {
					node.queue.enqueueAll(batch);
				}
				return null;
			}));
		}
	}

	// ---- burn-down
	// -----------------------------------------------------------------------------------------

	private void burnDown() throws Exception {
		int jobs = this.options.jobs;
		int batch = this.options.rawBatch;
		for (int threads : this.options.workerThreads) {
			double rawBatched = best(() -> withDb("burn-down-raw", "NORMAL", (db) -> {
				db.seedPending(QueueNode.TYPE, jobs);
				return Raw.lifecycle(db, threads, batch);
			}));
			double rawLean = best(() -> withDb("burn-down-raw-lean", "NORMAL", (db) -> {
				db.leanTables().seedPending(QueueNode.TYPE, jobs);
				return Raw.lifecycle(db, threads, batch);
			}));
			int singleJobs = Math.max(1, jobs / 5);
			double rawSingle = best(() -> withDb("burn-down-raw1", "NORMAL", (db) -> {
				db.seedPending(QueueNode.TYPE, singleJobs);
				return Raw.lifecycle(db, threads, 1);
			}));
			for (String executor : this.options.executors) {
				boolean virtual = executor.equals("virtual");
				double queue = withDb("burn-down", "NORMAL", (db) -> {
					db.seedPending(QueueNode.TYPE, jobs);
					return queueBurnDown(db, threads, virtual);
				});
				this.emptyBurnDown.put(executor + "/" + threads, queue);
				String scenario = "burn-down of " + String.format("%,d", jobs) + " (" + executor + " threads)";
				this.table.throughput(scenario, String.valueOf(threads), "end-to-end", queue, rawBatched,
						"raw lifecycle, " + batch + "/claim", (threads == 2) ? 0.5 : null);
				this.table.throughput(scenario, String.valueOf(threads), "end-to-end", queue, rawSingle,
						"raw lifecycle, 1/claim", null);
				// Raw batched: 2 commits per claim of rawBatch jobs.
				double rawCommits = 2.0 / batch;
				this.table.add(new ResultTable.Row(scenario, String.valueOf(threads), "write transactions per job",
						this.lastCommitsPerJob, "commits/job", rawCommits, "raw lifecycle, " + batch + "/claim",
						this.lastCommitsPerJob / rawCommits, "", null));
				if (this.options.stack("starter")) {
					double starter = withDb("burn-down-starter", "NORMAL", (db) -> {
						db.seedPending(QueueNode.TYPE, jobs);
						return starterBurnDown(db, threads, virtual);
					});
					String starterScenario = "burn-down of " + String.format("%,d", jobs) + " (starter, " + executor
							+ " threads)";
					this.table.throughput(starterScenario, String.valueOf(threads), "end-to-end", starter, rawLean,
							"raw lifecycle, " + batch + "/claim, lean tables (the ceiling)", 0.5);
					this.table.throughput(starterScenario, String.valueOf(threads), "end-to-end", starter, rawBatched,
							"raw lifecycle, " + batch + "/claim", null);
					stacksRow("burn-down of " + String.format("%,d", jobs) + " (" + executor + " threads)",
							String.valueOf(threads), starter, queue);
				}
			}
		}
	}

	/**
	 * The burn-down through the starter: the application's worker (with its meter and
	 * observation work per job) started on the pending jobs; jobs per second.
	 */
	private double starterBurnDown(Db db, int threads, boolean virtual) {
		long pending = db.pendingOrRunning();
		CountDownLatch done = new CountDownLatch((int) pending);
		WorkerListener listener = new WorkerListener() {
			@Override
			public void finished(ClaimedJob job, Completion completion, java.time.Duration queueWait,
					java.time.Duration execution) {
				done.countDown();
			}
		};
		try (StarterNode node = new StarterNode(db, threads, virtual, this.options.pollInterval, (payload, context) -> {
		}, listener)) {
			long start = System.nanoTime();
			node.startWorker();
			Timing.await(done, "starter burn-down of " + pending + " jobs");
			return Timing.jobsPerSecond(pending, System.nanoTime() - start);
		}
	}

	/**
	 * Runs a worker until every pending job of the database has finished; jobs per
	 * second.
	 */
	private double queueBurnDown(Db db, int threads, boolean virtual) {
		return queueBurnDown(db, threads, virtual, (payload, context) -> null);
	}

	private double queueBurnDown(Db db, int threads, boolean virtual, JobInvoker handler) {
		long pending = db.pendingOrRunning();
		CountDownLatch done = new CountDownLatch((int) pending);
		WorkerListener listener = new WorkerListener() {
			@Override
			public void finished(ClaimedJob job, Completion completion, java.time.Duration queueWait,
					java.time.Duration execution) {
				done.countDown();
			}
		};
		try (QueueNode node = new QueueNode(db).handle(handler)) {
			long start = System.nanoTime();
			node.startWorker(threads, virtual, this.options.pollInterval, listener);
			Timing.await(done, "burn-down of " + pending + " jobs");
			long elapsed = System.nanoTime() - start;
			this.lastCommitsPerJob = node.commits.commits.doubleValue() / pending;
			return Timing.jobsPerSecond(pending, elapsed);
		}
	}

	// ---- durable steps
	// -------------------------------------------------------------------------------------

	/**
	 * What durable steps cost: the same burn-down with a handler of five no-op steps
	 * against a plain no-op handler, jobs per second and write transactions per job. A
	 * fifth of the burn-down's jobs: each job writes five step records.
	 */
	private void steps() throws Exception {
		int jobs = Math.max(1, this.options.jobs / 5);
		int threads = 2;
		String scenario = "durable steps: burn-down of " + String.format("%,d", jobs) + ", 5 no-op steps per job";
		double plain = best(() -> withDb("steps-plain", "NORMAL", (db) -> {
			db.seedPending(QueueNode.TYPE, jobs);
			return queueBurnDown(db, threads, false);
		}));
		double plainCommits = this.lastCommitsPerJob;
		double stepped = best(() -> withDb("steps", "NORMAL", (db) -> {
			db.seedPending(QueueNode.TYPE, jobs);
			return queueBurnDown(db, threads, false, (payload, context) -> {
				for (int step = 0; step < 5; step++) {
					context.step("step-" + step, () -> {
					});
				}
				return null;
			});
		}));
		this.table.throughput(scenario, String.valueOf(threads), "end-to-end", stepped, plain,
				"queue, plain no-op handler", null);
		this.table.add(new ResultTable.Row(scenario, String.valueOf(threads), "write transactions per job",
				this.lastCommitsPerJob, "commits/job", plainCommits, "queue, plain no-op handler",
				this.lastCommitsPerJob / plainCommits, "", null));
	}

	// ---- latency
	// -------------------------------------------------------------------------------------------

	private void latency() throws Exception {
		String executor = this.options.executors.get(0);
		for (int threads : this.options.workerThreads) {
			if (this.options.stack("engine")) {
				withDb("latency", "NORMAL", (db) -> {
					latencyRun(db, threads, executor, false);
					return 0.0;
				});
			}
			if (this.options.stack("starter")) {
				withDb("latency-starter", "NORMAL", (db) -> {
					starterLatencyRun(db, threads, executor);
					return 0.0;
				});
			}
		}
		for (int threads : this.options.workerThreads) {
			withDb("latency-ipc", "NORMAL", (db) -> {
				latencyRun(db, threads, executor, true);
				return 0.0;
			});
		}
	}

	private void latencyRun(Db db, int threads, String executor, boolean otherProcess) throws Exception {
		int count = (int) Math.max(1, this.options.latencyRate * this.options.latencyDuration.toSeconds());
		Map<Long, Long> started = new ConcurrentHashMap<>();
		Map<Long, Long> committed = new ConcurrentHashMap<>();
		try (QueueNode node = new QueueNode(db).handle((payload, context) -> {
			started.put(context.jobId(), Timing.epochMicros());
			return null;
		})) {
			node.startWorker(threads, executor.equals("virtual"), this.options.pollInterval, WorkerListener.NONE);
			if (otherProcess) {
				enqueueInOtherProcess(db, count, committed);
			}
			else {
				long interval = 1_000_000_000L / this.options.latencyRate;
				long next = System.nanoTime();
				for (int i = 0; i < count; i++) {
					LockSupport.parkNanos(next - System.nanoTime());
					long id = node.queue.enqueue(QueueNode.TYPE, new Payload(i));
					committed.put(id, Timing.epochMicros());
					next += interval;
				}
			}
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (started.size() < count && System.nanoTime() < deadline) {
				Timing.sleep(10);
			}
			if (started.size() < count) {
				throw new IllegalStateException("Only " + started.size() + " of " + count + " latency jobs started");
			}
			if (!otherProcess) {
				checkpointRow("one process", threads, node.database);
			}
		}
		latencyRows(otherProcess ? "enqueuer in another process" : "one process", threads, otherProcess, count, started,
				committed);
	}

	/**
	 * The one-process latency through the starter: the application's worker, the
	 * {@code JobQueue} bean enqueuing at the steady pace.
	 */
	private void starterLatencyRun(Db db, int threads, String executor) throws Exception {
		int count = (int) Math.max(1, this.options.latencyRate * this.options.latencyDuration.toSeconds());
		Map<Long, Long> started = new ConcurrentHashMap<>();
		Map<Long, Long> committed = new ConcurrentHashMap<>();
		try (StarterNode node = new StarterNode(db, threads, executor.equals("virtual"), this.options.pollInterval,
				(payload, context) -> started.put(context.jobId(), Timing.epochMicros()), WorkerListener.NONE)) {
			node.startWorker();
			long interval = 1_000_000_000L / this.options.latencyRate;
			long next = System.nanoTime();
			for (int i = 0; i < count; i++) {
				LockSupport.parkNanos(next - System.nanoTime());
				long id = node.queue.enqueue(QueueNode.TYPE, new Payload(i));
				committed.put(id, Timing.epochMicros());
				next += interval;
			}
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (started.size() < count && System.nanoTime() < deadline) {
				Timing.sleep(10);
			}
			if (started.size() < count) {
				throw new IllegalStateException("Only " + started.size() + " of " + count + " latency jobs started");
			}
			checkpointRow("one process, starter", threads, node.database());
		}
		latencyRows("one process, starter", threads, false, count, started, committed);
	}

	/**
	 * Whether any enqueue or claim of the run could have run a checkpoint: SQLite's
	 * auto-checkpoint (in the commit that crosses its threshold) must be off on the
	 * queue's connections; the figure is the checkpoints the checkpointer thread ran
	 * instead.
	 */
	private void checkpointRow(String where, int threads, SqliteDatabase database) {
		long autoCheckpoint;
		try (Connection connection = database.dataSource().getConnection();
				java.sql.Statement statement = connection.createStatement();
				java.sql.ResultSet rows = statement.executeQuery("PRAGMA wal_autocheckpoint")) {
			autoCheckpoint = rows.next() ? rows.getLong(1) : -1L;
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		String scenario = "latency at " + this.options.latencyRate + "/s, " + where + " (poll "
				+ this.options.pollInterval.toMillis() + " ms)";
		this.table.add(new ResultTable.Row(scenario, String.valueOf(threads),
				"checkpoints off the commit path (wal_autocheckpoint=" + autoCheckpoint + ")",
				database.backgroundCheckpoints(), "checkpoints", null, null, null, "none in a commit",
				autoCheckpoint == 0));
	}

	private void latencyRows(String where, int threads, boolean otherProcess, int count, Map<Long, Long> started,
			Map<Long, Long> committed) {
		List<Long> micros = new ArrayList<>(count);
		committed.forEach((id, at) -> micros.add(Math.max(0, started.get(id) - at)));
		long[] sorted = Timing.sorted(micros);
		String scenario = "latency at " + this.options.latencyRate + "/s, " + where + " (poll "
				+ this.options.pollInterval.toMillis() + " ms)";
		String t = String.valueOf(threads);
		double p50 = Timing.percentile(sorted, 50) / 1000.0;
		double p99 = Timing.percentile(sorted, 99) / 1000.0;
		double max = sorted[sorted.length - 1] / 1000.0;
		if (otherProcess) {
			double half = this.options.pollInterval.toMillis() / 2.0;
			latencyRow(scenario, t, "enqueue commit → handler start p50", p50, half, "≤ half the poll interval");
		}
		else {
			latencyRow(scenario, t, "enqueue commit → handler start p50", p50, 2.0, "≤ 2 ms");
			latencyRow(scenario, t, "enqueue commit → handler start p99", p99, 5.0, "≤ 5 ms");
		}
		if (otherProcess) {
			latencyRow(scenario, t, "enqueue commit → handler start p99", p99, null, "");
		}
		latencyRow(scenario, t, "enqueue commit → handler start max", max, otherProcess ? null : 20.0,
				otherProcess ? "" : "≤ 20 ms");
	}

	private void latencyRow(String scenario, String threads, String measure, double value, Double limit,
			String target) {
		this.table.add(new ResultTable.Row(scenario, threads, measure, value, "ms", null, null, null, target,
				(limit != null) ? value <= limit : null));
	}

	/**
	 * Starts a second JVM that enqueues at the steady rate and reports each job's id and
	 * commit time.
	 */
	private void enqueueInOtherProcess(Db db, int count, Map<Long, Long> committed) throws Exception {
		String java = ProcessHandle.current().info().command().orElse("java");
		List<String> command = List.of(java, "-cp", System.getProperty("java.class.path"),
				BenchmarkMain.class.getName(), "--role=enqueuer", "--file=" + db.file,
				"--rate=" + this.options.latencyRate, "--count=" + count);
		Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line; (line = lines.readLine()) != null;) {
				if (line.startsWith("E ")) {
					String[] parts = line.split(" ");
					committed.put(Long.parseLong(parts[1]), Long.parseLong(parts[2]));
				}
			}
		}
		if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
			process.destroyForcibly();
			throw new IllegalStateException("The enqueuer process failed (exit " + process.exitValue() + ")");
		}
		if (committed.size() != count) {
			throw new IllegalStateException(
					"The enqueuer process reported " + committed.size() + " of " + count + " jobs");
		}
	}

	// ---- big table
	// -----------------------------------------------------------------------------------------

	private void bigTable() throws Exception {
		int jobs = this.options.jobs;
		int threads = 2;
		String executor = this.options.executors.get(0);
		Double empty = this.emptyBurnDown.get(executor + "/" + threads);
		if (empty == null) {
			empty = withDb("burn-down", "NORMAL", (db) -> {
				db.seedPending(QueueNode.TYPE, jobs);
				return queueBurnDown(db, threads, executor.equals("virtual"));
			});
		}
		double emptyTable = empty;
		withDb("big-table", "NORMAL", (db) -> {
			long start = System.nanoTime();
			db.seedFinished(QueueNode.TYPE, this.options.bigFinished);
			db.seedPending(QueueNode.TYPE, jobs);
			System.err.printf("  seeded %,d finished and %,d pending jobs in %.1f s%n", this.options.bigFinished, jobs,
					(System.nanoTime() - start) / 1e9);
			double raw = Raw.lifecycle(db, threads, this.options.rawBatch);
			for (int round = 1; round < this.options.repeat; round++) {
				db.seedPending(QueueNode.TYPE, jobs);
				raw = Math.max(raw, Raw.lifecycle(db, threads, this.options.rawBatch));
			}
			db.seedPending(QueueNode.TYPE, jobs);
			double queue = queueBurnDown(db, threads, executor.equals("virtual"));
			String scenario = "big table: burn-down of " + String.format("%,d", jobs) + " with "
					+ String.format("%,d", this.options.bigFinished) + "+ finished";
			this.table.throughput(scenario, String.valueOf(threads), "end-to-end", queue, raw,
					"raw lifecycle on the big table", null);
			this.table.add(new ResultTable.Row(scenario, String.valueOf(threads), "end-to-end vs empty table", queue,
					"jobs/s", emptyTable, "jobqueue, empty table", queue / emptyTable, "≥ 0.80 × empty table",
					queue / emptyTable >= 0.8));
			return 0.0;
		});
	}

	// ---- dashboard
	// -----------------------------------------------------------------------------------------

	/**
	 * The dashboard's overview rendered on a big table (1,000,000 finished and 100,000
	 * pending jobs): snapshot, chart of the last hour, progress, paused types and HTML,
	 * as a request to it costs the server. The finished jobs ended over the last week,
	 * one per 0.6 s, as under a retention of a week; the worst case, all of them in the
	 * last hour, is the second row.
	 */
	private void dashboard() throws Exception {
		int finished = this.options.quick ? 20_000 : 1_000_000;
		int pending = this.options.quick ? 2_000 : 100_000;
		withDb("dashboard", "NORMAL", (db) -> {
			db.seedFinished(QueueNode.TYPE, finished);
			db.seedPending(QueueNode.TYPE, pending);
			refillFinishedCounts(db, finished);
			long now = System.currentTimeMillis();
			long week = Duration.ofDays(7).toMillis();
			db.execute("UPDATE job_attempts SET finished_at = ? - (job_id * ?) % ?", now, 604_800_000L / finished,
					week);
			try (QueueNode node = new QueueNode(db)) {
				QueueProperties defaults = new QueueProperties();
				QueueDashboard dashboard = new QueueDashboard(new dev.jobqueue.views.QueueViews(node.insights),
						node.queue, List::of, defaults.snapshotSettings(),
						defaults.getObservability().getPayloadPreview(), Clock.systemUTC());
				String scenario = "dashboard overview, " + String.format("%,d", finished) + " finished + "
						+ String.format("%,d", pending) + " pending";
				refillOutcomeRollup(db, finished, "finished over a week");
				OverviewTiming.rows(this.table, dashboard, node.insights, scenario, "finished over a week");
				db.execute("UPDATE job_attempts SET finished_at = ? - (job_id % 3000000)", now);
				refillOutcomeRollup(db, finished, "all finished in the last hour");
				OverviewTiming.rows(this.table, dashboard, node.insights, scenario, "all finished in the last hour");
			}
			return 0.0;
		});
	}

	/**
	 * Counts the finished jobs as the migration that keeps their counts does
	 * ({@link FinishedCountsFill}), and says how long that took.
	 */
	private static void refillFinishedCounts(Db db, int finished) {
		FinishedCountsFill fill = FinishedCountsFill.sqlite();
		if (fill == null) {
			return;
		}
		db.execute(FinishedCountsFill.DELETE);
		long start = System.nanoTime();
		for (String statement : fill.migration()) {
			db.execute(statement);
		}
		System.err.printf("finished counts migration (fill) on %,d finished jobs: %.0f ms, %d rows%n", finished,
				(System.nanoTime() - start) / 1e6, db.count("SELECT count(*) FROM job_finished_counts"));
	}

	/**
	 * Counts the attempts into the per-minute rollup as the migration does
	 * ({@link OutcomeRollupFill}), and says how long that took.
	 */
	private static void refillOutcomeRollup(Db db, int attempts, String layout) {
		OutcomeRollupFill fill = OutcomeRollupFill.sqlite();
		if (fill == null) {
			return;
		}
		db.execute(OutcomeRollupFill.DELETE);
		db.execute(fill.outcomeIndex());
		long start = System.nanoTime();
		for (String statement : fill.migration()) {
			db.execute(statement);
		}
		System.err.printf("outcome rollup migration (backfill, index dropped) on %,d attempts, %s: %.0f ms, %d rows%n",
				attempts, layout, (System.nanoTime() - start) / 1e6,
				db.count("SELECT count(*) FROM job_outcome_minutes"));
	}

	// ---- idle
	// ----------------------------------------------------------------------------------------------

	private void idle() throws Exception {
		withDb("idle", "NORMAL", (db) -> {
			ThreadMXBean threads = ManagementFactory.getThreadMXBean();
			com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
				.getOperatingSystemMXBean();
			try (QueueNode node = new QueueNode(db).handle((payload, context) -> null)) {
				node.startWorker(8, false, this.options.pollInterval, WorkerListener.NONE);
				AtomicBoolean stop = new AtomicBoolean();
				AtomicLong rawCpu = new AtomicLong();
				Thread rawPoller = new Thread(() -> rawIdlePoller(db, stop, rawCpu), "raw-idle-poller");
				rawPoller.start();
				Timing.sleep(settle());
				Timing.heapAfterGcMb();
				Thread poller = Thread.getAllStackTraces()
					.keySet()
					.stream()
					.filter((thread) -> thread.getName().equals("jobqueue-poller") && thread.isAlive())
					.findFirst()
					.orElseThrow();
				long wall0 = System.nanoTime();
				long process0 = os.getProcessCpuTime();
				long poller0 = threads.getThreadCpuTime(poller.getId());
				long raw0 = rawCpu.get();
				Timing.sleep(this.options.idleDuration.toMillis());
				long wall = System.nanoTime() - wall0;
				double process = 100.0 * (os.getProcessCpuTime() - process0) / wall;
				double pollerPercent = 100.0 * (threads.getThreadCpuTime(poller.getId()) - poller0) / wall;
				double rawPercent = 100.0 * (rawCpu.get() - raw0) / wall;
				stop.set(true);
				rawPoller.join();
				String scenario = "idle worker, " + this.options.idleDuration.toSeconds() + " s, poll "
						+ this.options.pollInterval.toMillis() + " ms";
				this.table.add(new ResultTable.Row(scenario, "8", "CPU of the whole process", process, "% of a core",
						rawPercent, "raw poller thread", null, "< 1 % of a core", process < 1.0));
				this.table.add(new ResultTable.Row(scenario, "8", "CPU of the poller thread", pollerPercent,
						"% of a core", rawPercent, "raw poller thread", null, "", null));
			}
			return 0.0;
		});
	}

	/**
	 * The raw claim statement once per poll interval on its own connection; reports its
	 * thread's CPU time.
	 */
	private void rawIdlePoller(Db db, AtomicBoolean stop, AtomicLong cpu) {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		try (Connection connection = db.connect()) {
			while (!stop.get()) {
				Raw.pollOnce(connection);
				cpu.set(threads.getCurrentThreadCpuTime());
				Timing.sleep(this.options.pollInterval.toMillis());
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	// ---- heap
	// ----------------------------------------------------------------------------------------------

	private void heap() throws Exception {
		withDb("heap", "NORMAL", (db) -> {
			AtomicLong handled = new AtomicLong();
			try (QueueNode node = new QueueNode(db).handle((payload, context) -> {
				handled.incrementAndGet();
				return null;
			})) {
				node.startWorker(2, false, this.options.pollInterval, WorkerListener.NONE);
				Timing.sleep(settle());
				double empty = Timing.heapAfterGcMb();
				long start = System.nanoTime();
				db.seedPending(QueueNode.TYPE, this.options.heapJobs);
				System.err.printf("  seeded %,d pending jobs in %.1f s%n", this.options.heapJobs,
						(System.nanoTime() - start) / 1e9);
				node.queue.enqueue(QueueNode.TYPE, new Payload(0));
				Timing.sleep(settle() + this.options.pollInterval.toMillis());
				long depth = db.pendingOrRunning();
				double deep = Timing.heapAfterGcMb();
				String scenario = "heap after GC, worker running";
				this.table
					.add(new ResultTable.Row(scenario, "2", "0 pending", empty, "MB", null, null, null, "", null));
				this.table.add(new ResultTable.Row(scenario, "2",
						String.format("%,d pending (%,d handled meanwhile)", depth, handled.get()), deep, "MB", empty,
						"jobqueue, 0 pending", deep / empty, "≤ +10 MB", deep - empty <= 10.0));
			}
			return 0.0;
		});
	}

	// ---- durability
	// ----------------------------------------------------------------------------------------

	private void durability() throws Exception {
		int jobs = this.options.durabilityJobs;
		int singles = Math.max(1, jobs / 4);
		List<String[]> settings = new ArrayList<>();
		settings.add(new String[] { "file on disk, synchronous=NORMAL", "disk", "NORMAL" });
		settings.add(new String[] { "file on disk, synchronous=FULL", "disk", "FULL" });
		if (Files.isDirectory(Path.of("/dev/shm"))) {
			settings.add(new String[] { "file on tmpfs, synchronous=NORMAL", "tmpfs", "NORMAL" });
		}
		settings.add(new String[] { "in-memory (shared cache)", "memory", "NORMAL" });
		for (String[] setting : settings) {
			String scenario = "durability: " + setting[0];
			Function<String, Db> open = (name) -> switch (setting[1]) {
				case "memory" -> Db.memory(name);
				case "tmpfs" -> Db.file(Path.of("/dev/shm"), name, setting[2]);
				default -> Db.file(this.directory, name, setting[2]);
			};
			double rawSingle = 0;
			double queueSingle = 0;
			for (int round = 0; round < this.options.repeat; round++) {
				rawSingle = Math.max(rawSingle,
						with(open.apply("durability-raw"), (db) -> Raw.singleInserts(db, 1, singles)));
				queueSingle = Math.max(queueSingle,
						with(open.apply("durability"), (db) -> queueEnqueue(db, 1, singles)));
			}
			this.table.throughput(scenario, "1", "enqueue, 1 job per call", queueSingle, rawSingle, "raw single insert",
					null);
			double rawLifecycle = best(() -> with(open.apply("durability-raw"), (db) -> {
				db.seedPending(QueueNode.TYPE, jobs);
				return Raw.lifecycle(db, 2, this.options.rawBatch);
			}));
			double queueBurnDown = with(open.apply("durability"), (db) -> {
				db.seedPending(QueueNode.TYPE, jobs);
				return queueBurnDown(db, 2, false);
			});
			this.table.throughput(scenario, "2", "burn-down of " + String.format("%,d", jobs), queueBurnDown,
					rawLifecycle, "raw lifecycle, " + this.options.rawBatch + "/claim", null);
		}
	}

	// ---- plumbing
	// ------------------------------------------------------------------------------------------

	interface Measurement {

		double run() throws Exception;

	}

	/** The best of {@code --repeat} runs. */
	private double best(Measurement measurement) throws Exception {
		double best = 0;
		for (int round = 0; round < this.options.repeat; round++) {
			best = Math.max(best, measurement.run());
		}
		return best;
	}

	/** How long a started worker runs before a measurement begins. */
	private long settle() {
		return this.options.quick ? 300 : 2_000;
	}

	interface DbWork {

		double run(Db db) throws Exception;

	}

	private double withDb(String name, String synchronous, DbWork work) throws Exception {
		return with(Db.file(this.directory, name, synchronous), work);
	}

	private double with(Db db, DbWork work) throws Exception {
		try {
			return work.run(db);
		}
		finally {
			db.close();
			if (!this.options.keepFiles) {
				db.delete();
			}
		}
	}

	interface Scenario {

		void run() throws Exception;

	}

	private static void progress(String name, Scenario scenario) throws Exception {
		long start = System.nanoTime();
		System.err.println("scenario " + name + " ...");
		scenario.run();
		System.err.printf("scenario %s done in %.1f s%n", name, (System.nanoTime() - start) / 1e9);
	}

	/**
	 * The second process of the cross-process latency run: enqueues {@code count} jobs at
	 * {@code rate}/s.
	 */
	static void runEnqueuer(Path file, int rate, int count) {
		try (Db db = Db.existing(file); QueueNode node = new QueueNode(db)) {
			// A few jobs of warm-up would run in the parent too; instead warm up on a
			// throw-away JSON encode.
			QueueNode.CODEC.toJson(new Payload(0));
			long interval = 1_000_000_000L / rate;
			long next = System.nanoTime();
			StringBuilder out = new StringBuilder();
			for (int i = 0; i < count; i++) {
				LockSupport.parkNanos(next - System.nanoTime());
				long id = node.queue.enqueue(QueueNode.TYPE, new Payload(i));
				long at = Timing.epochMicros();
				out.setLength(0);
				System.out.println(out.append("E ").append(id).append(' ').append(at));
				next += interval;
			}
			System.out.flush();
		}
	}

}
