package dev.jobqueue.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.sqlite.SqliteDatabase;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteJobStore;
import dev.jobqueue.sqlite.SqliteRetentionStore;
import dev.jobqueue.testing.ChildJvm;
import dev.jobqueue.testing.DelegatingRetentionStore;
import dev.jobqueue.testing.FailureCountingJobStore;
import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.LongTest;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.RetentionCleanerMain;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static dev.jobqueue.testing.RetentionFixtures.orphans;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Deletes many expired jobs while a worker processes a stream of new ones on the same
 * file, with a cleaner in the worker's process and one in another process. What keeps the
 * worker going is counted, not timed: every delete of the cleaner in this process takes
 * at most its batch of {@value #BATCH} rows (so the write lock is given up between
 * batches), the log stays under {@link #WAL_LIMIT}, and the worker completes jobs during
 * each cleanup. How long the worker's writes waited is printed, not asserted: on a loaded
 * machine any wait can pass any bound, and how much throughput the worker keeps is a
 * benchmark's question, not a test's. The normal run uses {@value #DEFAULT_EXPIRED}
 * expired jobs; {@code -Djobqueue.test.retention.jobs=1000000} (or the Maven profile
 * {@code retention-long}) runs the full million.
 */
@LongTest
class RetentionUnderLoadTests {

	static final int DEFAULT_EXPIRED = 100_000;

	static final int EXPIRED = Integer.getInteger("jobqueue.test.retention.jobs", DEFAULT_EXPIRED);

	static final long WAL_LIMIT = 64L * 1024 * 1024;

	static final int BATCH = 5_000;

	/**
	 * The worker's {@code busy_timeout}: a cleanup batch holding the write lock longer
	 * makes a worker write count a busy retry (printed).
	 */
	static final Duration WORKER_BUSY_TIMEOUT = Duration.ofSeconds(1);

	@TempDir
	Path dir;

	TestDatabase db;

	MutableClock clock = MutableClock.startingAt("2026-06-01T00:00:00Z");

	final AtomicLong completed = new AtomicLong();

	final AtomicLong enqueued = new AtomicLong();

	final AtomicBoolean producing = new AtomicBoolean(true);

	final List<RuntimeException> producerFailures = new ArrayList<>();

	final AtomicLong maxWalBytes = new AtomicLong();

	@BeforeEach
	void setUp() {
		this.db = TestDatabase.create(this.dir);
	}

	@AfterEach
	void tearDown() {
		this.db.close();
	}

	@Test
	void expiredJobsAreDeletedInBoundedBatchesWhileTheWorkerKeepsCompletingJobs() throws Exception {
		JobRows.insert(this.db.dataSource(), "", EXPIRED / 2, "thumbnail", JobStatus.SUCCEEDED,
				this.clock.instant().minus(Duration.ofDays(100)), Duration.ofMillis(10));
		JobRows.insert(this.db.dataSource(), "", EXPIRED - EXPIRED / 2, "report", JobStatus.FAILED,
				this.clock.instant().minus(Duration.ofDays(200)), Duration.ofMillis(10));
		// The worker on connections of its own, with a short busy_timeout, and a lock of
		// its own: in-process cleanups meet it at SQLite's lock, as another process does.
		HikariDataSource workerPool = SqliteDataSources.create(this.db.url(), WORKER_BUSY_TIMEOUT, "NORMAL", 4);
		SqliteDatabase workerDatabase = new SqliteDatabase(workerPool, this.db.file().toString(),
				Duration.ofSeconds(30));
		FailureCountingJobStore workerStore = new FailureCountingJobStore(
				new SqliteJobStore(workerDatabase, SqliteDialect.tables("")));
		WorkerHarness harness = new WorkerHarness(this.db, this.clock).workerStore(workerStore)
			.ticker(Ticker.SYSTEM)
			.concurrency(8)
			.pollInterval(Duration.ofMillis(50))
			.lease(Duration.ofMinutes(5))
			.shutdownTimeout(Duration.ofSeconds(5))
			.maxSnoozes(3)
			.retry(new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(10), () -> 0.5))
			.workerDefaultLimits()
			.listener(new WorkerListener() {
				@Override
				public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
					RetentionUnderLoadTests.this.completed.incrementAndGet();
				}
			});
		harness.handle(HandlerDefinition.of("work", (payload, context) -> null));
		JobWorker worker = harness.worker("load-worker", Executors.newFixedThreadPool(8));
		DefaultJobQueue queue = new DefaultJobQueue(workerStore, this.db.admin(), WorkerHarness.CODEC, harness.handlers,
				this.clock, new EnqueueLimits(3, 64 * 1024), null);
		queue.setSignals(worker);
		Thread producer = new Thread(() -> produce(queue), "producer");
		Thread walWatcher = new Thread(this::watchWal, "wal-watcher");
		walWatcher.setDaemon(true);
		SqliteRetentionStore retentionStore = new SqliteRetentionStore(this.db.database(), SqliteDialect.tables(""));
		// Start from an empty log, so the watcher sees what the load writes, not the bulk
		// inserts above.
		assertThat(retentionStore.files().checkpoint(true).walBytes()).isZero();
		worker.start();
		producer.start();
		walWatcher.start();
		try {
			await().atMost(Duration.ofSeconds(60)).until(() -> this.completed.get() >= 10_000);
			double before = throughputOverJobs(15_000);
			long busyRetriesBefore = workerDatabase.busyRetries();

			AtomicInteger largestDelete = new AtomicInteger();
			AtomicInteger deletes = new AtomicInteger();
			RetentionStore countingStore = new DelegatingRetentionStore(retentionStore) {
				@Override
				public int deleteFinished(JobStatus status, String type, Instant finishedBefore, int limit) {
					int deleted = super.deleteFinished(status, type, finishedBefore, limit);
					largestDelete.accumulateAndGet(deleted, Math::max);
					deletes.incrementAndGet();
					return deleted;
				}

				@Override
				public int deleteFinishedChains(Map<JobStatus, Instant> finishedBefore, int limit) {
					return retentionStore.deleteFinishedChains(finishedBefore, limit);
				}
			};
			RetentionCleaner cleaner = new RetentionCleaner(countingStore, retentionStore.files(), RetentionSettings
				.of(RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(90), Duration.ofDays(30), Map.of()), BATCH),
					this.clock, "cleaner", () -> false);
			long completedBefore = this.completed.get();
			long started = System.nanoTime();
			RetentionReport report = cleaner.purge(JobStatus.SUCCEEDED, Duration.ofDays(30));
			double seconds = (System.nanoTime() - started) / 1e9;
			double inProcess = (this.completed.get() - completedBefore) / seconds;
			double between = throughputOverJobs(15_000);
			assertThat(report.outcome()).isEqualTo(RetentionReport.Outcome.COMPLETED);
			assertThat(report.totalDeleted()).isEqualTo(EXPIRED / 2);
			System.out.printf(
					"retention under load, cleaner in this process: %d expired jobs deleted in %.1f s " + "(%.0f/s)%n",
					report.totalDeleted(), seconds, report.totalDeleted() / seconds);

			long completedInProcess = this.completed.get() - completedBefore;
			double[] otherProcess = cleanupInAnotherProcess();
			// Windows without a cleanup before, between and after the two cleanups,
			// averaged: the load of a
			// shared machine drifts, and a single window can catch a quiet or a busy
			// moment.
			double withoutCleanup = (before + between + throughputOverJobs(15_000)) / 3;

			System.out.printf("retention under load: worker %.0f jobs/s without cleanup; %.0f jobs/s (%.0f%%) while "
					+ "this process cleaned, %.0f jobs/s (%.0f%%) while another process cleaned %d jobs in %.1f s; max "
					+ "WAL %d bytes%n", withoutCleanup, inProcess, 100 * inProcess / withoutCleanup, otherProcess[0],
					100 * otherProcess[0] / withoutCleanup, EXPIRED - EXPIRED / 2, otherProcess[1],
					this.maxWalBytes.get());
			long busyRetries = workerDatabase.busyRetries() - busyRetriesBefore;
			System.out.printf("retention under load: %d worker writes waited out a %d ms busy_timeout during the "
					+ "cleanups; %d jobs completed during the in-process cleanup, %.0f during the other process's%n",
					busyRetries, WORKER_BUSY_TIMEOUT.toMillis(), completedInProcess, otherProcess[2]);
			assertThat(largestDelete.get()).as("rows of the largest delete of the cleaner in this process")
				.isPositive()
				.isLessThanOrEqualTo(BATCH);
			assertThat(deletes.get()).as("deletes of the cleaner in this process")
				.isGreaterThanOrEqualTo((EXPIRED / 2) / BATCH);
			assertThat(completedInProcess).as("jobs completed while this process cleaned").isPositive();
			assertThat(otherProcess[2]).as("jobs completed while another process cleaned").isPositive();
		}
		finally {
			this.producing.set(false);
			producer.join(10_000);
			worker.stop();
			workerPool.close();
		}
		assertThat(workerStore.failures).as("errors that reached the worker or the producer").isEmpty();
		assertThat(this.producerFailures).isEmpty();
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE type IN ('thumbnail', 'report')")).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE status <> 'succeeded' AND type = 'work'"))
			.as("unfinished jobs are not touched")
			.isEqualTo(this.enqueued.get() - this.completed.get());
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE type = 'work' AND status = 'succeeded'"))
			.isEqualTo(this.completed.get());
		assertThat(orphans(this.db)).isZero();
		assertThat(this.maxWalBytes.get()).isLessThan(WAL_LIMIT);
	}

	/**
	 * Runs a cleanup in a separate JVM on the same file, the way a second application
	 * instance would.
	 * @return the worker's jobs per second meanwhile, the cleanup's seconds, and the jobs
	 * the worker completed meanwhile
	 */
	private double[] cleanupInAnotherProcess() throws Exception {
		ChildJvm cleaner = ChildJvm.startWatched(RetentionCleanerMain.class, this.dir.resolve("cleaner.log"),
				this.db.file(), this.clock.millis(), 5000, "other-process");
		Duration patience = Duration.ofMinutes(5);
		while (!cleaner.nextLine(patience).equals("start")) {
			// Whatever the JVM printed before the cleanup started.
		}
		long completedBefore = this.completed.get();
		long started = System.nanoTime();
		String done = cleaner.nextLine(patience);
		while (!done.startsWith("done ")) {
			done = cleaner.nextLine(patience);
		}
		double seconds = (System.nanoTime() - started) / 1e9;
		double rate = (this.completed.get() - completedBefore) / seconds;
		assertThat(done).isEqualTo("done " + (EXPIRED - EXPIRED / 2));
		cleaner.waitForExit(Duration.ofSeconds(30));
		return new double[] { rate, seconds, this.completed.get() - completedBefore };
	}

	/** Jobs per second while the worker completes {@code jobs} more jobs. */
	private double throughputOverJobs(int jobs) {
		long target = this.completed.get() + jobs;
		long started = System.nanoTime();
		await().atMost(Duration.ofSeconds(120))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.completed.get() >= target);
		return jobs / ((System.nanoTime() - started) / 1e9);
	}

	/**
	 * Keeps a backlog of about 2,000 new jobs, enqueued 200 at a time in one transaction
	 * each.
	 */
	private void produce(DefaultJobQueue queue) {
		List<JobRequest> batch = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			batch.add(JobRequest.of("work", Map.of("n", i)));
		}
		while (this.producing.get()) {
			if (this.enqueued.get() - this.completed.get() > 2_000) {
				Thread.onSpinWait();
				Thread.yield();
				continue;
			}
			try {
				queue.enqueueAll(batch);
				this.enqueued.addAndGet(batch.size());
			}
			catch (RuntimeException ex) {
				synchronized (this.producerFailures) {
					this.producerFailures.add(ex);
				}
			}
		}
	}

	private void watchWal() {
		Path wal = this.db.file().resolveSibling(this.db.file().getFileName() + "-wal");
		while (true) {
			try {
				if (Files.exists(wal)) {
					this.maxWalBytes.accumulateAndGet(Files.size(wal), Math::max);
				}
				Thread.sleep(5);
			}
			catch (Exception ex) {
				return;
			}
		}
	}

}
