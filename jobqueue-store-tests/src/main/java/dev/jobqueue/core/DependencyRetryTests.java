package dev.jobqueue.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.ErrorCodes;
import dev.jobqueue.Job;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A dependency that finishes, is retried and finishes again is counted once by each job
 * waiting for it (docs/chains.md, "Cancel, retry"): a retried dependency does not hold
 * back again the jobs it already released, and a job ended by its dependency policy, when
 * retried, runs without reviving the jobs that were settled with its failure.
 */
public abstract class DependencyRetryTests extends StoreTests {

	private Job job(long id) {
		return this.harness.queue.find(id).orElseThrow();
	}

	/** Runs whatever is due, a few rounds, so chains advance as far as they can now. */
	private void runDue(JobWorker worker) {
		for (int i = 0; i < 4; i++) {
			worker.pollOnce();
		}
	}

	/** A handler that fails its first run and succeeds from then on. */
	private void handleFailsOnce(String type) {
		AtomicInteger runs = new AtomicInteger();
		this.harness.handle(HandlerDefinition.of(type, (payload, context) -> {
			if (runs.incrementAndGet() == 1) {
				throw new IllegalStateException("first run fails");
			}
			return "ok";
		}));
	}

	@Test
	void aFailedDependencyThatIsRetriedAndSucceedsIsNotCountedTwice() {
		handleFailsOnce("flaky");
		this.harness.handle(HandlerDefinition.of("ok", (payload, context) -> "done"));
		long d = this.harness.queue.enqueue(JobRequest.of("flaky", "D").maxAttempts(1));
		long e = this.harness.queue.enqueue(JobRequest.of("ok", "E").delay(Duration.ofHours(1)));
		long waits = this.harness.queue
			.enqueue(JobRequest.of("ok", "after D and E").after(d, e).onDependencyFailure(DependencyPolicy.RUN));
		JobWorker worker = this.harness.directWorker("w1");

		runDue(worker);
		assertThat(job(d).status()).isEqualTo(JobStatus.FAILED);
		assertThat(job(waits).unfinishedDependencies()).isEqualTo(1);
		// Enqueued after D failed: D counts at once.
		long enqueuedAfterTheFailure = this.harness.queue
			.enqueue(JobRequest.of("ok", "after failed D and E").after(d, e).onDependencyFailure(DependencyPolicy.RUN));
		assertThat(job(enqueuedAfterTheFailure).unfinishedDependencies()).isEqualTo(1);

		assertThat(this.harness.queue.retry(d)).isTrue();
		runDue(worker);
		assertThat(job(d).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job(waits).status()).isEqualTo(JobStatus.WAITING);
		assertThat(job(waits).unfinishedDependencies()).isEqualTo(1);
		assertThat(job(enqueuedAfterTheFailure).status()).isEqualTo(JobStatus.WAITING);
		assertThat(job(enqueuedAfterTheFailure).unfinishedDependencies()).isEqualTo(1);

		this.clock.advance(Duration.ofHours(2));
		runDue(worker);
		assertThat(job(e).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job(waits).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job(enqueuedAfterTheFailure).status()).isEqualTo(JobStatus.SUCCEEDED);
	}

	@Test
	void aCancelledDependencyThatIsRetriedIsCountedOnceAndRevivesNothing() {
		this.harness.handle(HandlerDefinition.of("ok", (payload, context) -> "done"));
		long d = this.harness.queue.enqueue(JobRequest.of("ok", "D").delay(Duration.ofMinutes(30)));
		long e = this.harness.queue.enqueue(JobRequest.of("ok", "E").delay(Duration.ofHours(1)));
		long runs = this.harness.queue
			.enqueue(JobRequest.of("ok", "run").after(d, e).onDependencyFailure(DependencyPolicy.RUN));
		long cancels = this.harness.queue.enqueue(JobRequest.of("ok", "cancel").after(d, e));
		assertThat(this.harness.queue.cancel(d)).isTrue();
		assertThat(job(runs).unfinishedDependencies()).isEqualTo(1);
		assertThat(job(cancels).status()).isEqualTo(JobStatus.CANCELLED);

		assertThat(this.harness.queue.retry(d)).isTrue();
		JobWorker worker = this.harness.directWorker("w1");
		this.clock.advance(Duration.ofMinutes(40));
		runDue(worker);
		assertThat(job(d).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job(runs).status()).isEqualTo(JobStatus.WAITING);
		assertThat(job(runs).unfinishedDependencies()).isEqualTo(1);
		assertThat(job(cancels).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(job(cancels).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_CANCELLED);

		this.clock.advance(Duration.ofHours(1));
		runDue(worker);
		assertThat(job(runs).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job(cancels).status()).isEqualTo(JobStatus.CANCELLED);
	}

	@Test
	void aJobEndedByItsPolicyRunsWhenRetriedAndItsOwnDependentsAreNotRevivedNorCountedAgain() {
		handleFailsOnce("flaky");
		this.harness.handle(HandlerDefinition.of("ok", (payload, context) -> "done"));
		long d = this.harness.queue.enqueue(JobRequest.of("flaky", "D").maxAttempts(1));
		long e = this.harness.queue.enqueue(JobRequest.of("ok", "E").delay(Duration.ofHours(1)));
		long ended = this.harness.queue
			.enqueue(JobRequest.of("ok", "ended").after(d).onDependencyFailure(DependencyPolicy.FAIL));
		long runs = this.harness.queue
			.enqueue(JobRequest.of("ok", "run").after(ended, e).onDependencyFailure(DependencyPolicy.RUN));
		long cancels = this.harness.queue.enqueue(JobRequest.of("ok", "cancel").after(ended));
		JobWorker worker = this.harness.directWorker("w1");

		runDue(worker);
		assertThat(job(ended).status()).isEqualTo(JobStatus.FAILED);
		assertThat(job(ended).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_FAILED);
		assertThat(job(runs).unfinishedDependencies()).isEqualTo(1);
		assertThat(job(cancels).status()).isEqualTo(JobStatus.CANCELLED);

		assertThat(this.harness.queue.retry(ended)).isTrue();
		Job retried = job(ended);
		assertThat(retried.status()).isEqualTo(JobStatus.PENDING);
		assertThat(retried.unfinishedDependencies()).isZero();
		runDue(worker);
		assertThat(job(ended).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job(d).status()).isEqualTo(JobStatus.FAILED);
		assertThat(job(runs).status()).isEqualTo(JobStatus.WAITING);
		assertThat(job(runs).unfinishedDependencies()).isEqualTo(1);
		assertThat(job(cancels).status()).isEqualTo(JobStatus.CANCELLED);

		this.clock.advance(Duration.ofHours(2));
		runDue(worker);
		assertThat(job(runs).status()).isEqualTo(JobStatus.SUCCEEDED);
	}

}
