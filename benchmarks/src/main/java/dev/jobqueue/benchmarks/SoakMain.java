package dev.jobqueue.benchmarks;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;

/**
 * A long run at a steady rate, as an application lives with the queue: two worker
 * processes (Spring Boot applications with the starter) on one database, one of them
 * SIGKILLed and started again every few minutes, short jobs enqueued at a fixed rate by
 * this process (an application with the starter and no worker), a few long jobs that
 * report progress (and so heartbeat) every second, and retention deleting succeeded jobs
 * a minute after they finished. Every sample reads from the database what a long run must
 * keep bounded: the queue's tables and indexes (and dead rows, on PostgreSQL), the
 * write-ahead log (SQLite), and the claim latency (run_at to start) of the jobs first
 * started in the sample's window. Writes a CSV, a Markdown table and a PNG plot.
 *
 * <pre>
 * java -cp benchmarks.jar dev.jobqueue.benchmarks.SoakMain --store=postgresql --minutes=30 \
 *     --rate=200 --vacuum=auto --out=target/soak
 * </pre>
 *
 * {@code --store=sqlite} runs on a file under {@code --dir}; PostgreSQL on a database of
 * its own made on {@code --url} (default the local server), dropped at the end.
 * {@code --autovacuum=on|off|server} turns the server's autovacuum on or off for the run
 * (ALTER SYSTEM, restored at the end), or leaves it as it is.
 */
public final class SoakMain {

	static final String SHORT = "soak.short";

	static final String LONG = "soak.long";

	/** The two worker processes, as started (and restarted after each kill). */
	private final Process[] workers = new Process[2];

	private String restoreAutovacuum;

	private boolean cleanedUp;

	private SoakMain() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals("worker")) {
			runWorker(args[1], args[2], Integer.parseInt(args[3]));
			return;
		}
		Map<String, String> options = options(args);
		Settings settings = new Settings(options.getOrDefault("store", "postgresql"),
				Integer.parseInt(options.getOrDefault("minutes", "30")),
				Integer.parseInt(options.getOrDefault("rate", "200")),
				Double.parseDouble(options.getOrDefault("long-rate", "0.5")),
				Duration.ofSeconds(Long.parseLong(options.getOrDefault("kill-every", "180"))),
				Duration.ofSeconds(Long.parseLong(options.getOrDefault("sample-every", "30"))),
				options.getOrDefault("vacuum", "auto"), options.getOrDefault("autovacuum", "server"),
				Path.of(options.getOrDefault("out", "target/soak")),
				options.getOrDefault("url", "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres"),
				Path.of(options.getOrDefault("dir", System.getProperty("java.io.tmpdir"))),
				Integer.parseInt(options.getOrDefault("threads", "8")));
		new SoakMain().run(settings);
	}

	record Settings(String store, int minutes, int rate, double longRate, Duration killEvery, Duration sampleEvery,
			String vacuum, String autovacuum, Path out, String adminUrl, Path dir, int threads) {

		boolean postgresql() {
			return this.store.equals("postgresql");
		}

		String label() {
			return this.store + (postgresql() ? "-autovacuum-" + this.autovacuum + "-vacuum-" + this.vacuum : "")
					+ "-long-" + this.longRate;
		}

	}

	/** One row of the run's record. */
	record Sample(long seconds, long tableBytes, long indexBytes, long deadRows, long liveRows, long walBytes,
			long started, double p50Millis, double p99Millis, double maxMillis, int kills, long pending) {

	}

	private void run(Settings settings) throws Exception {
		Files.createDirectories(settings.out());
		String name = "jobqueue_soak_" + ManagementFactory.getRuntimeMXBean().getPid();
		String url = settings.postgresql()
				? settings.adminUrl().replaceFirst("(jdbc:postgresql://[^/]+/)[^?]*", "$1" + name)
				: "jdbc:sqlite:" + settings.dir().resolve(name + ".db");
		List<Sample> samples = new ArrayList<>();
		// Ctrl-C runs no finally block: the hook cleans up then, the block otherwise.
		Thread cleanUp = new Thread(() -> cleanUp(settings, name), "soak-clean-up");
		Runtime.getRuntime().addShutdownHook(cleanUp);
		try {
			if (settings.postgresql()) {
				try (Connection admin = DriverManager.getConnection(settings.adminUrl());
						Statement statement = admin.createStatement()) {
					statement.execute("CREATE DATABASE " + name);
					if (!settings.autovacuum().equals("server")) {
						this.restoreAutovacuum = autovacuumRestore(admin);
						statement.execute("ALTER SYSTEM SET autovacuum = " + settings.autovacuum());
						statement.execute("SELECT pg_reload_conf()");
					}
				}
			}
			try (ConfigurableApplicationContext enqueuer = application(url, settings.vacuum(), 0)) {
				JobQueue queue = enqueuer.getBean(JobQueue.class);
				this.workers[0] = worker(url, settings);
				this.workers[1] = worker(url, settings);
				samples = soak(settings, url, queue, this.workers);
			}
		}
		finally {
			cleanUp(settings, name);
			try {
				Runtime.getRuntime().removeShutdownHook(cleanUp);
			}
			catch (IllegalStateException ex) {
				// Shutting down already (SIGTERM, Ctrl-C): the hook has cleaned up.
			}
		}
		write(settings, samples);
	}

	/**
	 * Kills the worker processes, restores the server's autovacuum and drops the database
	 * (or deletes the file); once, each step whatever the others did.
	 */
	private synchronized void cleanUp(Settings settings, String name) {
		if (this.cleanedUp) {
			return;
		}
		this.cleanedUp = true;
		for (Process worker : this.workers) {
			if (worker != null) {
				try {
					worker.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}
		if (settings.postgresql()) {
			try (Connection admin = DriverManager.getConnection(settings.adminUrl());
					Statement statement = admin.createStatement()) {
				if (this.restoreAutovacuum != null) {
					try {
						statement.execute(this.restoreAutovacuum);
						statement.execute("SELECT pg_reload_conf()");
					}
					catch (SQLException ex) {
						System.err.println("SOAK could not restore autovacuum (" + this.restoreAutovacuum + "): " + ex);
					}
				}
				statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
			}
			catch (SQLException ex) {
				System.err.println("SOAK could not drop the database " + name + ": " + ex);
			}
		}
		else {
			for (String suffix : List.of(".db", ".db-wal", ".db-shm", ".db.migration-lock")) {
				try {
					Files.deleteIfExists(settings.dir().resolve(name + suffix));
				}
				catch (IOException ex) {
					System.err.println("SOAK could not delete " + name + suffix + ": " + ex);
				}
			}
		}
	}

	/**
	 * The statement that puts autovacuum back as it was: its earlier ALTER SYSTEM value,
	 * or none (RESET), so that the run leaves postgresql.auto.conf as it found it.
	 */
	private static String autovacuumRestore(Connection admin) throws SQLException {
		try (Statement statement = admin.createStatement();
				ResultSet rows = statement
					.executeQuery("SELECT setting FROM pg_file_settings WHERE name = 'autovacuum' AND applied "
							+ "AND sourcefile LIKE '%postgresql.auto.conf'")) {
			return rows.next() ? "ALTER SYSTEM SET autovacuum = " + rows.getString(1) : "ALTER SYSTEM RESET autovacuum";
		}
	}

	private List<Sample> soak(Settings settings, String url, JobQueue queue, Process[] workers) throws Exception {
		List<Sample> samples = new ArrayList<>();
		awaitWorkers(url, workers.length);
		long startNanos = System.nanoTime();
		long endNanos = startNanos + TimeUnit.MINUTES.toNanos(settings.minutes());
		long intervalNanos = TimeUnit.SECONDS.toNanos(1) / settings.rate();
		long longEveryNanos = (long) (TimeUnit.SECONDS.toNanos(1) / settings.longRate());
		long nextShort = startNanos;
		long nextLong = startNanos;
		long nextSample = startNanos + settings.sampleEvery().toNanos();
		long nextKill = startNanos + settings.killEvery().toNanos();
		Instant windowStart = Instant.now();
		int kills = 0;
		AtomicLong enqueued = new AtomicLong();
		// A few threads enqueue, one job per call as an application does, so a slow call
		// on a busy machine does not lower the offered rate.
		ExecutorService enqueuers = Executors.newFixedThreadPool(4);
		try (Connection connection = connect(url)) {
			while (System.nanoTime() < endNanos) {
				long now = System.nanoTime();
				if (now >= nextShort) {
					enqueuers.execute(() -> queue.enqueue(SHORT, enqueued.incrementAndGet()));
					nextShort += intervalNanos;
				}
				if (now >= nextLong) {
					enqueuers.execute(() -> queue.enqueue(LONG, enqueued.incrementAndGet()));
					nextLong += longEveryNanos;
				}
				if (now >= nextKill) {
					int victim = kills % workers.length;
					// destroyForcibly is SIGKILL on Linux: the process gets no word.
					workers[victim].destroyForcibly().waitFor(30, TimeUnit.SECONDS);
					workers[victim] = worker(url, settings);
					kills++;
					nextKill += settings.killEvery().toNanos();
				}
				if (now >= nextSample) {
					Instant windowEnd = Instant.now();
					Sample sample = sample(settings, connection, url, windowStart, windowEnd,
							TimeUnit.NANOSECONDS.toSeconds(now - startNanos), kills);
					samples.add(sample);
					System.out.println(describe(sample));
					windowStart = windowEnd;
					nextSample += settings.sampleEvery().toNanos();
				}
				long sleep = Math.min(nextShort, nextLong) - System.nanoTime();
				if (sleep > 0) {
					TimeUnit.NANOSECONDS.sleep(Math.min(sleep, TimeUnit.MILLISECONDS.toNanos(5)));
				}
			}
		}
		finally {
			enqueuers.shutdownNow();
		}
		System.out.printf(Locale.ROOT, "SOAK enqueued %,d jobs in %d min (%.0f/s)%n", enqueued.get(),
				settings.minutes(), enqueued.get() / (settings.minutes() * 60.0));
		return samples;
	}

	/** Waits until both worker processes have registered, so the run starts warm. */
	private static void awaitWorkers(String url, int workers) throws SQLException, InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
		try (Connection connection = connect(url)) {
			while (System.nanoTime() < deadline) {
				try (Statement statement = connection.createStatement();
						ResultSet rows = statement.executeQuery("SELECT count(*) FROM job_workers")) {
					rows.next();
					if (rows.getLong(1) >= workers) {
						return;
					}
				}
				Thread.sleep(200);
			}
		}
		throw new IllegalStateException("The worker processes did not register within 2 minutes");
	}

	private static Connection connect(String url) throws SQLException {
		return DriverManager.getConnection(url);
	}

	private Sample sample(Settings settings, Connection connection, String url, Instant from, Instant to, long seconds,
			int kills) throws SQLException, IOException {
		long tableBytes = 0;
		long indexBytes = 0;
		long dead = 0;
		long live = 0;
		long wal = 0;
		List<Double> latencies = new ArrayList<>();
		if (settings.postgresql()) {
			try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery("""
					SELECT sum(pg_table_size(relid)), sum(pg_indexes_size(relid)), sum(n_dead_tup),
					       sum(n_live_tup)
					FROM pg_stat_user_tables WHERE schemaname = 'public' AND relname LIKE 'job%'
					""")) {
				rows.next();
				tableBytes = rows.getLong(1);
				indexBytes = rows.getLong(2);
				dead = rows.getLong(3);
				live = rows.getLong(4);
			}
			try (PreparedStatement select = connection.prepareStatement("""
					SELECT extract(epoch FROM started_at - run_at) * 1000 FROM jobs
					WHERE started_at >= ? AND started_at < ? AND attempts = 1 AND type = ?
					""")) {
				select.setObject(1, java.sql.Timestamp.from(from));
				select.setObject(2, java.sql.Timestamp.from(to));
				select.setString(3, SHORT);
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						latencies.add(rows.getDouble(1));
					}
				}
			}
		}
		else {
			Path file = Path.of(url.substring("jdbc:sqlite:".length()));
			tableBytes = Files.size(file);
			Path walFile = Path.of(file + "-wal");
			wal = Files.exists(walFile) ? Files.size(walFile) : 0;
			try (PreparedStatement select = connection.prepareStatement("""
					SELECT started_at - run_at FROM jobs
					WHERE started_at >= ? AND started_at < ? AND attempts = 1 AND type = ?
					""")) {
				select.setLong(1, from.toEpochMilli());
				select.setLong(2, to.toEpochMilli());
				select.setString(3, SHORT);
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						latencies.add(rows.getDouble(1));
					}
				}
			}
		}
		long pending;
		try (Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT count(*) FROM jobs WHERE status = 'pending'")) {
			rows.next();
			pending = rows.getLong(1);
		}
		latencies.sort(Double::compare);
		return new Sample(seconds, tableBytes, indexBytes, dead, live, wal, latencies.size(), percentile(latencies, 50),
				percentile(latencies, 99), latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1), kills,
				pending);
	}

	private static double percentile(List<Double> sorted, int percent) {
		if (sorted.isEmpty()) {
			return 0;
		}
		return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * percent / 100.0) - 1));
	}

	private static String describe(Sample sample) {
		return String.format(Locale.ROOT,
				"SOAK t=%ds tables=%.1fMB indexes=%.1fMB dead=%d live=%d wal=%.1fMB started=%d p50=%.1fms p99=%.1fms "
						+ "max=%.1fms kills=%d pending=%d",
				sample.seconds(), mb(sample.tableBytes()), mb(sample.indexBytes()), sample.deadRows(),
				sample.liveRows(), mb(sample.walBytes()), sample.started(), sample.p50Millis(), sample.p99Millis(),
				sample.maxMillis(), sample.kills(), sample.pending());
	}

	private static double mb(long bytes) {
		return bytes / 1024.0 / 1024.0;
	}

	private static void write(Settings settings, List<Sample> samples) throws IOException {
		String label = settings.label();
		Path csv = settings.out().resolve("soak-" + label + ".csv");
		try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
			out.println("seconds,table_bytes,index_bytes,dead_rows,live_rows,wal_bytes,started,p50_ms,p99_ms,max_ms,"
					+ "kills,pending");
			for (Sample s : samples) {
				out.printf(Locale.ROOT, "%d,%d,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%d,%d%n", s.seconds(), s.tableBytes(),
						s.indexBytes(), s.deadRows(), s.liveRows(), s.walBytes(), s.started(), s.p50Millis(),
						s.p99Millis(), s.maxMillis(), s.kills(), s.pending());
			}
		}
		Path markdown = settings.out().resolve("soak-" + label + ".md");
		try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(markdown))) {
			out.printf(
					"Soak %s: %d min, %d short jobs/s, %.1f long jobs/s (progress every second), 2 worker "
							+ "processes x %d threads, one SIGKILLed every %ds, succeeded jobs kept 60 s%n%n",
					label, settings.minutes(), settings.rate(), settings.longRate(), settings.threads(),
					settings.killEvery().toSeconds());
			out.println("| minute | tables MB | indexes MB | dead rows | WAL MB | claims | p50 ms | p99 ms | max ms | "
					+ "kills | pending |");
			out.println("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
			long everySeconds = Math.max(settings.sampleEvery().toSeconds(), 120);
			long next = 0;
			for (Sample s : samples) {
				if (s.seconds() >= next || s == samples.get(samples.size() - 1)) {
					out.printf(Locale.ROOT,
							"| %.1f | %.1f | %.1f | %,d | %.1f | %,d | %.1f | %.1f | %.1f | %d | %,d |%n",
							s.seconds() / 60.0, mb(s.tableBytes()), mb(s.indexBytes()), s.deadRows(), mb(s.walBytes()),
							s.started(), s.p50Millis(), s.p99Millis(), s.maxMillis(), s.kills(), s.pending());
					next = s.seconds() + everySeconds;
				}
			}
		}
		SoakPlot.write(settings.out().resolve("soak-" + label + ".png"), label, samples);
		System.out.println("SOAK wrote " + csv + ", " + markdown + " and the plot beside them");
	}

	private static Process worker(String url, Settings settings) throws IOException {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-cp",
						System.getProperty("java.class.path"), SoakMain.class.getName(), "worker", url,
						settings.vacuum(), String.valueOf(settings.threads())));
		return new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
	}

	/**
	 * Works until the soak process ends: its end, even a SIGKILL, closes this process's
	 * standard input.
	 */
	private static void runWorker(String url, String vacuum, int threads) throws IOException {
		application(url, vacuum, threads);
		while (System.in.read() != -1) {
			// Nothing is sent; only the end counts.
		}
		System.exit(0);
	}

	/** The starter in an application, with a worker of {@code threads} (none if 0). */
	static ConfigurableApplicationContext application(String url, String vacuum, int threads) {
		Map<String, Object> properties = new HashMap<>();
		properties.put("jobqueue.datasource.url", url);
		properties.put("spring.autoconfigure.exclude",
				"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration");
		properties.put("jobqueue.worker.enabled", threads > 0);
		properties.put("jobqueue.worker.concurrency", Math.max(1, threads));
		properties.put("jobqueue.scheduling.enabled", false);
		properties.put("jobqueue.retention.succeeded", "60s");
		properties.put("jobqueue.retention.interval", "10s");
		properties.put("jobqueue.retention.vacuum", vacuum);
		properties.put("logging.level.dev.jobqueue", "ERROR");
		properties.put("logging.level.dev.jobqueue.core.retention.TableVacuums", "INFO");
		properties.put("logging.level.dev.jobqueue.core.worker", "WARN");
		return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties(properties)
			.run();
	}

	private static Map<String, String> options(String[] args) {
		Map<String, String> options = new HashMap<>();
		for (String arg : args) {
			if (!arg.startsWith("--") || !arg.contains("=")) {
				throw new IllegalArgumentException("Options are --name=value, got " + arg);
			}
			options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
		}
		return options;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		SoakHandlers soakHandlers() {
			return new SoakHandlers();
		}

	}

	/**
	 * A short job that does nothing, and a ten-second job that reports progress each
	 * second.
	 */
	static class SoakHandlers {

		@JobHandler(SHORT)
		public void shortJob(long number) {
		}

		@JobHandler(LONG)
		public void longJob(long number, JobContext context) throws InterruptedException {
			for (int second = 1; second <= 10; second++) {
				Thread.sleep(1_000);
				context.progress(second, 10, "second " + second);
			}
		}

	}

}
