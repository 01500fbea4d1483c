package dev.jobqueue.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteRetentionStore;
import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;

/**
 * Prints how fast the retention cleanup deletes and how much the file shrinks. Not part
 * of the normal build:
 *
 * <pre>
 * ./mvnw -pl queue-spring-boot-autoconfigure -Pretention-bench test                              # 1,000,000 jobs
 * ./mvnw -pl queue-spring-boot-autoconfigure -Pretention-bench test -Djobqueue.bench.jobs=100000 # quicker
 * </pre>
 *
 * Each mode runs on a fresh file holding {@code jobs} expired jobs (each with its attempt
 * and 3 events, as the worker writes them) and 5% live ones: "maintenance window" deletes
 * without pausing, "alongside workers" with the default pause (the cleaner holds the
 * write lock at most a quarter of the time).
 */
class RetentionBenchmark {

	@Test
	void printTable() throws Exception {
		main(new String[0]);
	}

	public static void main(String[] args) throws Exception {
		int jobs = Integer.getInteger("jobqueue.bench.jobs", 1_000_000);
		int batchSize = Integer.getInteger("jobqueue.bench.batch-size", 5_000);
		List<String> rows = new ArrayList<>();
		rows.add(run("maintenance window (no pause)", jobs, batchSize, 0));
		double pause = RetentionSettings.of(RetentionPolicy.keepForever(), batchSize).batchPause();
		rows.add(run("alongside workers (default pause " + pause + "x batch time)", jobs, batchSize, pause));
		System.out.println();
		System.out.printf("Retention cleanup, %,d expired jobs (+%,d live), batch size %,d, sqlite-jdbc %s, %d CPUs%n",
				jobs, jobs / 20, batchSize, sqliteVersion(), Runtime.getRuntime().availableProcessors());
		System.out.println();
		System.out.println("| mode | jobs deleted | seconds | jobs/s | rows/s (jobs+attempts+events) | file before | "
				+ "file after | WAL max |");
		System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
		rows.forEach(System.out::println);
		System.out.println();
	}

	private static String run(String mode, int jobs, int batchSize, double pause) throws Exception {
		Path dir = Files.createTempDirectory("retention-bench");
		MutableClock clock = MutableClock.startingAt("2026-06-01T00:00:00Z");
		try (TestDatabase db = TestDatabase.create(dir)) {
			Instant now = clock.instant();
			JobRows.insert(db.dataSource(), "", jobs * 3 / 4, "thumbnail", JobStatus.SUCCEEDED,
					now.minus(Duration.ofDays(120)), Duration.ofMillis(10));
			JobRows.insert(db.dataSource(), "", jobs - jobs * 3 / 4, "report", JobStatus.FAILED,
					now.minus(Duration.ofDays(200)), Duration.ofMillis(10));
			JobRows.insert(db.dataSource(), "", jobs / 20, "thumbnail", JobStatus.SUCCEEDED,
					now.minus(Duration.ofDays(1)), Duration.ofMillis(10));
			SqliteRetentionStore store = new SqliteRetentionStore(db.database(), SqliteDialect.tables(""));
			long rowsBefore = db.count("SELECT (SELECT count(*) FROM jobs) + (SELECT count(*) FROM job_attempts) "
					+ "+ (SELECT count(*) FROM job_events)");
			long before = store.files().checkpoint(true).fileBytes();
			RetentionSettings settings = new RetentionSettings(
					RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(90), Duration.ofDays(30), Map.of()),
					batchSize, pause, Duration.ofMinutes(2), 1024, 100_000);
			RetentionCleaner cleaner = new RetentionCleaner(store, store.files(), settings, clock, "bench", () -> true);
			long[] maxWal = { 0 };
			Path wal = db.file().resolveSibling(db.file().getFileName() + "-wal");
			Thread watcher = new Thread(() -> {
				while (!Thread.currentThread().isInterrupted()) {
					try {
						maxWal[0] = Math.max(maxWal[0], Files.exists(wal) ? Files.size(wal) : 0);
						Thread.sleep(5);
					}
					catch (Exception ex) {
						return;
					}
				}
			});
			watcher.start();
			long started = System.nanoTime();
			RetentionReport report = cleaner.purgeOnce();
			double seconds = (System.nanoTime() - started) / 1e9;
			watcher.interrupt();
			watcher.join();
			long rowsAfter = db.count("SELECT (SELECT count(*) FROM jobs) + (SELECT count(*) FROM job_attempts) "
					+ "+ (SELECT count(*) FROM job_events)");
			long after = store.storage().fileBytes();
			return String.format("| %s | %,d | %.1f | %,.0f | %,.0f | %s | %s | %s |", mode, report.totalDeleted(),
					seconds, report.totalDeleted() / seconds, (rowsBefore - rowsAfter) / seconds, mib(before),
					mib(after), mib(maxWal[0]));
		}
		finally {
			try (var files = Files.walk(dir)) {
				files.sorted(java.util.Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
		}
	}

	private static String mib(long bytes) {
		return String.format("%.1f MiB", bytes / (1024.0 * 1024));
	}

	private static String sqliteVersion() {
		try {
			return org.sqlite.SQLiteJDBCLoader.getVersion();
		}
		catch (Exception ex) {
			return "?";
		}
	}

}
