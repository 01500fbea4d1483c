package dev.jobqueue.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobStatus;
import dev.jobqueue.PausedType;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.StoreTests;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

public abstract class PauseTests extends StoreTests {

	StoreFixture operatorDb;

	StoreFixture workerDb;

	/** The operator's process: pauses and resumes. */
	WorkerHarness operator;

	/** Another process on the same file: runs the jobs. */
	WorkerHarness node;

	@BeforeEach
	void setUp() {
		this.operatorDb = this.db;
		this.workerDb = this.db.anotherProcess();
		this.operator = new WorkerHarness(this.operatorDb, this.clock);
		this.node = new WorkerHarness(this.workerDb, this.clock);
	}

	@AfterEach
	void tearDown() {
		this.workerDb.close();
	}

	@Test
	void pauseHoldsClaimsInEveryProcessAndResumeReleasesThem() {
		AtomicInteger reports = new AtomicInteger();
		AtomicInteger others = new AtomicInteger();
		this.node.handle(HandlerDefinition.of("report", (payload, context) -> reports.incrementAndGet()))
			.handle(HandlerDefinition.of("other", (payload, context) -> others.incrementAndGet()));
		JobWorker worker = this.node.directWorker("node-1");

		assertThat(this.operator.queue.pause("report")).isTrue();
		assertThat(this.operator.queue.pause("report")).isFalse();
		for (int i = 0; i < 3; i++) {
			this.operator.queue.enqueue("report", i);
		}
		this.operator.queue.enqueue("other", 1);

		assertThat(worker.pollOnce()).isEqualTo(1);
		assertThat(worker.pollOnce()).isZero();
		assertThat(others).hasValue(1);
		assertThat(reports).hasValue(0);
		assertThat(this.node.queue.pausedTypes()).containsExactly(new PausedType("report", this.clock.instant()));

		assertThat(this.operator.queue.resume("report")).isTrue();
		assertThat(this.operator.queue.resume("report")).isFalse();
		assertThat(worker.pollOnce()).isEqualTo(3);
		assertThat(reports).hasValue(3);
		assertThat(this.node.queue.pausedTypes()).isEmpty();
	}

	@Test
	void runningJobsOfAPausedTypeFinish() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		this.node.handle(HandlerDefinition.of("report", (payload, context) -> {
			started.countDown();
			release.await();
			return "done";
		}));
		long running = this.operator.queue.enqueue("report", 1);
		ExecutorService executor = Executors.newFixedThreadPool(2);
		try {
			JobWorker worker = this.node.worker("node-1", executor);
			assertThat(worker.pollOnce()).isEqualTo(1);
			assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

			this.operator.queue.pause("report");
			long waiting = this.operator.queue.enqueue("report", 2);
			release.countDown();
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
				worker.pollOnce();
				assertThat(this.operator.queue.find(running).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
			});
			assertThat(worker.pollOnce()).isZero();
			assertThat(this.operator.queue.find(waiting).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		}
		finally {
			executor.shutdownNow();
		}
	}

}
