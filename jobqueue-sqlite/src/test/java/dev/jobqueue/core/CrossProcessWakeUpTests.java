package dev.jobqueue.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker picks up a job enqueued by another process (here: another pool on the same
 * file, which does not signal the worker) long before its poll interval ends, by watching
 * the store's change token.
 */
class CrossProcessWakeUpTests {

	@TempDir
	Path dir;

	TestDatabase workerSide;

	TestDatabase otherProcess;

	MutableClock clock = MutableClock.startingAt("2026-01-01T00:00:00Z");

	@BeforeEach
	void setUp() {
		this.workerSide = TestDatabase.create(this.dir);
		this.otherProcess = TestDatabase.create(this.workerSide.file(), "");
	}

	@AfterEach
	void tearDown() {
		this.otherProcess.close();
		this.workerSide.close();
	}

	@Test
	void changeTokenChangesWhenAnotherConnectionWritesAndOnlyThen() {
		Object before = this.workerSide.store().changeToken();

		assertThat(before).isNotNull();
		assertThat(this.workerSide.store().changeToken()).isEqualTo(before);
		queueOf(this.otherProcess).enqueue("greet", "ada");
		assertThat(this.workerSide.store().changeToken()).isNotEqualTo(before);
	}

	@Test
	void aJobEnqueuedByAnotherProcessStartsWithoutWaitingOutThePollInterval() {
		AtomicInteger handled = new AtomicInteger();
		WorkerHarness harness = new WorkerHarness(this.workerSide, this.clock)
			.handle(HandlerDefinition.of("greet", (payload, context) -> handled.incrementAndGet()))
			.ticker(Ticker.SYSTEM)
			.concurrency(2)
			.pollInterval(Duration.ofSeconds(60))
			.lease(Duration.ofSeconds(30))
			.shutdownTimeout(Duration.ofSeconds(5))
			.maxSnoozes(3)
			.retry(new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(1), () -> 0.5))
			.workerDefaultLimits();
		JobWorker worker = harness.worker("w1", Executors.newFixedThreadPool(2));
		worker.start();
		try {
			long first = queueOf(this.otherProcess).enqueue("greet", "ada");
			await().atMost(Duration.ofSeconds(10)).until(() -> succeeded(first));
			long second = queueOf(this.otherProcess).enqueue("greet", "grace");

			// The poll interval is a minute: only the change token can wake the worker
			// this soon.
			await().atMost(Duration.ofSeconds(10)).until(() -> succeeded(second));
			assertThat(handled).hasValue(2);
		}
		finally {
			worker.stop();
		}
	}

	private boolean succeeded(long id) {
		return this.workerSide.count("SELECT count(*) FROM jobs WHERE id = ? AND status = 'succeeded'", id) == 1;
	}

	private DefaultJobQueue queueOf(TestDatabase db) {
		return new DefaultJobQueue(db.store(), db.admin(), WorkerHarness.CODEC, new HandlerRegistry(), this.clock,
				new EnqueueLimits(3, 64 * 1024), null);
	}

}
