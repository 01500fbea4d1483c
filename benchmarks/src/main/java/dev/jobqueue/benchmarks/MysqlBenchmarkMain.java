package dev.jobqueue.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;

import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.DefaultErrorClassifier;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.core.worker.WorkerSettings;
import dev.jobqueue.mysql.MysqlDataSources;
import dev.jobqueue.mysql.MysqlDatabase;
import dev.jobqueue.mysql.MysqlDialect;
import dev.jobqueue.mysql.MysqlStorage;

/**
 * The queue on MariaDB (or MySQL) next to hand-written JDBC on the same server, in the
 * same run: single enqueue, burn-down at 8 workers against a raw batched lifecycle
 * ({@code FOR UPDATE SKIP LOCKED}, 100 per claim, 8 threads), one against two worker
 * processes, and enqueue-to-start latency from another process (MySQL has no
 * {@code NOTIFY}: the worker finds the job at its next poll, every second here). Each
 * measurement gets a database of its own, dropped afterwards. Prints a Markdown table.
 *
 * <pre>
 * java [-Dbench.jobs=20000] [-Dbench.enqueues=3000] -cp benchmarks/target/benchmarks.jar \
 *     dev.jobqueue.benchmarks.MysqlBenchmarkMain [--quick] [--admin-url=jdbc:mariadb://127.0.0.1:3306/test?user=root]
 * </pre>
 *
 * With {@code worker <url> <threads>} or {@code enqueuer <url> <count> <perSecond>} as
 * arguments it is the child process of the multi-process rows.
 */
public final class MysqlBenchmarkMain {

	private static final String TYPE = "noop";

	private static final String RAW_INSERT_JOB = """
			INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at)
			VALUES ('noop', 'pending', 0, ?, 5, ?, ?)
			""";

	private static final String RAW_INSERT_EVENT = "INSERT INTO job_events (job_id, at, event) VALUES (?, ?, 'ENQUEUED')";

	private static final String RAW_PICK = """
			SELECT id FROM jobs WHERE status = 'pending' AND type = 'noop' AND run_at <= ?
			ORDER BY priority DESC, run_at, id LIMIT 100 FOR UPDATE SKIP LOCKED
			""";

	private final String adminUrl;

	private final boolean quick;

	private final List<String[]> rows = new ArrayList<>();

	private MysqlBenchmarkMain(String adminUrl, boolean quick) {
		this.adminUrl = adminUrl;
		this.quick = quick;
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals("worker")) {
			runWorker(args[1], Integer.parseInt(args[2]));
			return;
		}
		if (args.length > 0 && args[0].equals("enqueuer")) {
			runEnqueuer(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
			return;
		}
		String adminUrl = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
		boolean quick = false;
		for (String arg : args) {
			if (arg.startsWith("--admin-url=")) {
				adminUrl = arg.substring("--admin-url=".length());
			}
			else if (arg.equals("--quick")) {
				quick = true;
			}
			else {
				throw new IllegalArgumentException("Unknown option " + arg + ": use --quick, --admin-url=<jdbc url>");
			}
		}
		new MysqlBenchmarkMain(adminUrl, quick).run();
	}

	private void run() throws Exception {
		int enqueues = Integer.getInteger("bench.enqueues", this.quick ? 300 : 3_000);
		int burnDown = Integer.getInteger("bench.jobs", this.quick ? 2_000 : 20_000);
		System.err.println("single enqueue...");
		double raw = best(3, () -> rawEnqueue(enqueues));
		double queue = best(3, () -> queueEnqueue(enqueues));
		row("single enqueue, 1 thread (jobs/s)", raw, queue);
		System.err.println("burn-down, 8 workers...");
		double rawLifecycle = best(2, () -> rawLifecycle(burnDown, 8));
		double queueBurnDown = best(2, () -> queueBurnDown(burnDown, 8));
		row("burn-down, 8 workers vs raw lifecycle 100/claim, 8 threads (jobs/s)", rawLifecycle, queueBurnDown);
		System.err.println("processes...");
		double oneProcess = processesBurnDown(burnDown, 1, 8);
		double twoProcesses = processesBurnDown(burnDown, 2, 8);
		this.rows.add(new String[] { "burn-down, 2 processes x 8 workers vs 1 process x 8 (jobs/s)",
				format(oneProcess) + " (1 process)", format(twoProcesses) + " (2 processes)",
				String.format(Locale.ROOT, "%.2fx", twoProcesses / oneProcess) });
		System.err.println("latency...");
		double[] latency = crossProcessLatency(this.quick ? 100 : 600, 50);
		this.rows.add(new String[] { "enqueue in another process -> handler starts, worker polls every 1 s (ms)", "",
				String.format(Locale.ROOT, "p50 %.1f, p99 %.1f, max %.1f", latency[0], latency[1], latency[2]), "" });
		print();
	}

	private interface Measurement {

		double run() throws Exception;

	}

	/**
	 * The best of a few runs: other programs on the machine only ever slow a run down.
	 */
	private static double best(int runs, Measurement measurement) throws Exception {
		double best = 0;
		for (int i = 0; i < runs; i++) {
			best = Math.max(best, measurement.run());
		}
		return best;
	}

	/** A job and its ENQUEUED event in one transaction, as the queue writes them. */
	private double rawEnqueue(int jobs) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl);
				Connection connection = DriverManager.getConnection(db.url);
				PreparedStatement insert = connection.prepareStatement(RAW_INSERT_JOB, Statement.RETURN_GENERATED_KEYS);
				PreparedStatement event = connection.prepareStatement(RAW_INSERT_EVENT)) {
			connection.setAutoCommit(false);
			long started = System.nanoTime();
			for (int i = 0; i < jobs; i++) {
				long now = System.currentTimeMillis();
				insert.setString(1, "{\"n\":" + i + "}");
				insert.setLong(2, now);
				insert.setLong(3, now);
				insert.executeUpdate();
				try (ResultSet keys = insert.getGeneratedKeys()) {
					keys.next();
					event.setLong(1, keys.getLong(1));
				}
				event.setLong(2, now);
				event.executeUpdate();
				connection.commit();
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

	private double rawLifecycle(int jobs, int threads) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl)) {
			db.fill(jobs);
			AtomicLong done = new AtomicLong();
			ExecutorService pool = Executors.newFixedThreadPool(threads);
			List<Connection> connections = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				Connection connection = DriverManager.getConnection(db.url);
				connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
				connections.add(connection);
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

	/**
	 * Claims 100 with {@code SKIP LOCKED}, marks them running with their attempts and
	 * events, commits; then marks them succeeded with theirs, commits. Lists are literal
	 * ids, as hand-written code would send them.
	 */
	private static void rawWorkerLoop(Connection connection, AtomicLong done) throws SQLException {
		String worker = "raw-" + Thread.currentThread().getId();
		connection.setAutoCommit(false);
		try (PreparedStatement pick = connection.prepareStatement(RAW_PICK);
				Statement statement = connection.createStatement()) {
			while (true) {
				long now = System.currentTimeMillis();
				List<Long> ids = new ArrayList<>();
				pick.setLong(1, now);
				try (ResultSet rows = pick.executeQuery()) {
					while (rows.next()) {
						ids.add(rows.getLong(1));
					}
				}
				if (ids.isEmpty()) {
					connection.commit();
					return;
				}
				String list = ids.stream().map(String::valueOf).collect(Collectors.joining(","));
				statement.executeUpdate("UPDATE jobs SET status = 'running', runs = runs + 1, attempts = attempts + 1, "
						+ "started_at = " + now + ", worker_id = '" + worker + "', heartbeat_at = " + now
						+ ", lease_until = " + (now + 60_000) + " WHERE id IN (" + list + ")");
				statement.executeUpdate("INSERT INTO job_attempts (job_id, run, attempt, worker_id, started_at) "
						+ "SELECT id, runs, attempts, '" + worker + "', " + now + " FROM jobs WHERE id IN (" + list
						+ ")");
				statement.executeUpdate("INSERT INTO job_events (job_id, at, event) SELECT id, " + now
						+ ", 'CLAIMED' FROM jobs WHERE id IN (" + list + ")");
				connection.commit();
				statement.executeUpdate("UPDATE jobs SET status = 'succeeded', finished_at = " + now
						+ ", lease_until = NULL WHERE id IN (" + list + ") AND status = 'running'");
				statement.executeUpdate("UPDATE job_attempts SET outcome = 'SUCCEEDED', finished_at = " + now
						+ " WHERE job_id IN (" + list + ") AND run = 1");
				done.addAndGet(statement.executeUpdate("INSERT INTO job_events (job_id, at, event) SELECT id, " + now
						+ ", 'SUCCEEDED' FROM jobs WHERE id IN (" + list + ")"));
				connection.commit();
			}
		}
	}

	private double queueBurnDown(int jobs, int workers) throws Exception {
		try (TempDatabase db = new TempDatabase(this.adminUrl)) {
			db.fill(jobs);
			CountDownLatch finished = new CountDownLatch(jobs);
			try (Node node = new Node(db.url, workers + 2)) {
				long started = System.nanoTime();
				JobWorker worker = node.worker(workers, Duration.ofSeconds(1), new WorkerListener() {
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
	 * notes how long ago that was: on MySQL, the wait for the next poll.
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

	private static void runWorker(String url, int threads) throws Exception {
		Node node = new Node(url, threads + 2);
		node.worker(threads, Duration.ofSeconds(1), WorkerListener.NONE).start();
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
				Instant now = Instant.now();
				node.queue.enqueue("timed", now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000);
			}
		}
	}

	private static Process child(String... args) throws Exception {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-cp",
						System.getProperty("java.class.path"), MysqlBenchmarkMain.class.getName()));
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

	private void print() {
		System.out.println("| MariaDB scenario | raw JDBC / baseline | queue | ratio |");
		System.out.println("|---|---|---|---|");
		for (String[] row : this.rows) {
			System.out.println("| " + String.join(" | ", row) + " |");
		}
	}

	/**
	 * The queue as an application has it, without Spring: own pool, store, queue; a
	 * worker on demand.
	 */
	private static final class Node implements AutoCloseable {

		final HikariDataSource dataSource;

		final MysqlStorage storage;

		final HandlerRegistry handlers = new HandlerRegistry();

		final DefaultJobQueue queue;

		Node(String url, int poolSize) {
			this.dataSource = MysqlDataSources.create(url, null, null, poolSize, Duration.ofSeconds(30));
			this.storage = new MysqlStorage(new MysqlDatabase(this.dataSource, url), MysqlDialect.tables(""));
			this.storage.initializeSchema();
			this.handlers.register(HandlerDefinition.of(TYPE, (payload, context) -> null));
			this.queue = new DefaultJobQueue(this.storage.jobs(), this.storage.admin(), QueueNode.CODEC, this.handlers,
					Clock.systemUTC(), new EnqueueLimits(5, 1 << 20), null);
		}

		JobWorker worker(int concurrency, Duration pollInterval, WorkerListener listener) {
			WorkerSettings settings = new WorkerSettings(WorkerIds.newId(), concurrency, pollInterval,
					Duration.ofSeconds(60), Duration.ofSeconds(5), 10);
			JobWorker worker = new JobWorker(this.storage.jobs(), this.handlers, QueueNode.CODEC,
					new DefaultErrorClassifier(),
					new RetryPolicy(Duration.ofSeconds(1), Duration.ofMinutes(1), Math::random), Clock.systemUTC(),
					settings, QueueNode.executor(concurrency, false), listener, null);
			this.storage.signals(worker);
			return worker;
		}

		@Override
		public void close() {
			this.dataSource.close();
		}

	}

	/** A database of its own on the server, migrated by the queue, dropped on close. */
	private static final class TempDatabase implements AutoCloseable {

		private static final AtomicLong counter = new AtomicLong();

		final String adminUrl;

		final String name;

		final String url;

		TempDatabase(String adminUrl) throws SQLException {
			this.adminUrl = adminUrl;
			this.name = "jobqueue_bench_" + ManagementFactory.getRuntimeMXBean().getPid() + "_"
					+ counter.incrementAndGet();
			this.url = adminUrl.replaceFirst("(jdbc:(?:mariadb|mysql)://[^/]+/)[^?]*", "$1" + this.name);
			admin("CREATE DATABASE " + this.name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
			// The queue's migrations create the tables, as in an application.
			new Node(this.url, 2).close();
		}

		/** Pending jobs, due a little apart, inserted 1,000 rows a statement. */
		void fill(int jobs) throws SQLException {
			long due = System.currentTimeMillis() - 1_000;
			try (Connection connection = DriverManager.getConnection(this.url);
					Statement statement = connection.createStatement()) {
				for (int from = 0; from < jobs; from += 1_000) {
					StringBuilder insert = new StringBuilder(
							"INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at) VALUES ");
					for (int n = from; n < Math.min(jobs, from + 1_000); n++) {
						insert.append((n > from) ? "," : "")
							.append("('noop', 'pending', '{\"n\":")
							.append(n)
							.append("}', 5, ")
							.append(due + n / 100)
							.append(", ")
							.append(due)
							.append(')');
					}
					statement.executeUpdate(insert.toString());
				}
				statement.execute("ANALYZE TABLE jobs");
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
			admin("DROP DATABASE IF EXISTS " + this.name);
		}

	}

}
