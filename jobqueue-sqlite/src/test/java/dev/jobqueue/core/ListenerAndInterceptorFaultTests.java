package dev.jobqueue.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.jobqueue.Job;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.QueueFileTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a worker's listener or a run interceptor (observation, tracing) does must never
 * change an outcome.
 */
class ListenerAndInterceptorFaultTests extends QueueFileTests {

	private final AtomicInteger runs = new AtomicInteger();

	private long enqueueCounted() {
		this.harness.handle(HandlerDefinition.of("mail", (payload, context) -> {
			this.runs.incrementAndGet();
			return "sent";
		}));
		return this.harness.queue.enqueue("mail", 1);
	}

	@Test
	void aListenerThrowingOnEveryCallChangesNoOutcome() {
		long id = enqueueCounted();
		this.harness.listener(new WorkerListener() {

			@Override
			public void claimed(int count) {
				throw new IllegalStateException("meter registry closed");
			}

			@Override
			public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
				throw new StackOverflowError("listener recursed");
			}

		});
		JobWorker worker = this.harness.directWorker("w1");

		assertThat(worker.pollOnce()).isEqualTo(1);

		assertSentOnce(id);
	}

	@Test
	void anInterceptorFailingAfterTheRunKeepsTheHandlersOutcome() {
		long id = enqueueCounted();
		this.harness.interceptor((job, run) -> {
			run.call();
			throw new IllegalStateException("observation.stop() failed");
		});

		this.harness.directWorker("w1").pollOnce();

		assertSentOnce(id);
	}

	@Test
	void anInterceptorThrowingAnErrorAfterTheRunKeepsTheHandlersOutcome() {
		long id = enqueueCounted();
		this.harness.interceptor((job, run) -> {
			run.call();
			throw new NoClassDefFoundError("io/micrometer/Missing");
		});

		this.harness.directWorker("w1").pollOnce();

		assertSentOnce(id);
	}

	@Test
	void anInterceptorFailingBeforeTheRunLetsTheHandlerRunUnobserved() {
		long id = enqueueCounted();
		this.harness.interceptor((job, run) -> {
			throw new IllegalStateException("observation.start() failed");
		});

		this.harness.directWorker("w1").pollOnce();

		assertSentOnce(id);
	}

	@Test
	void anErrorDispatchingARunHandsTheJobBackInsteadOfLeavingItRunning() {
		long id = enqueueCounted();
		JobWorker broken = this.harness.worker("w1", new ThreadlessExecutor());

		assertThat(broken.pollOnce()).isEqualTo(1);

		Job job = this.harness.queue.find(id).orElseThrow();
		assertThat(job.status()).isEqualTo(JobStatus.PENDING);
		assertThat(job.attempts()).isZero();
		assertThat(this.db.column("SELECT outcome FROM job_attempts WHERE job_id = ?", id))
			.containsExactly("HANDED_BACK");
		this.harness.directWorker("w2").pollOnce();
		assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(this.runs).hasValue(1);
	}

	private void assertSentOnce(long id) {
		Job job = this.harness.queue.find(id).orElseThrow();
		assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job.result()).isEqualTo("\"sent\"");
		assertThat(job.attempts()).isEqualTo(1);
		assertThat(this.runs).hasValue(1);
		assertThat(Invariants.violations(this.db.file())).isEmpty();
	}

	/**
	 * An executor that cannot start a thread, as when the process runs out of native
	 * threads.
	 */
	static final class ThreadlessExecutor extends InertExecutorService {

		@Override
		public void execute(Runnable command) {
			throw new OutOfMemoryError(
					"unable to create native thread: possibly out of memory or process/resource " + "limits reached");
		}

	}

}
