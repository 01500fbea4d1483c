package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import dev.jobqueue.BulkAction;
import dev.jobqueue.BulkRequest;
import dev.jobqueue.BulkResult;
import dev.jobqueue.JobFilter;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Bulk actions ({@code JobQueue.bulk}): each matching job changed once through the
 * single-job path with its own event, nothing else touched, a job that changed between
 * its selection and its batch left alone, deletes of finished jobs only.
 */
public abstract class BulkActionTests extends StoreTests {

	private static final JobFilter PAYMENT_FAILURES = JobFilter.any()
		.type("pay")
		.status(JobStatus.FAILED)
		.errorCode("DEPENDENCY:PAYMENT_API");

	/** Enqueues a job, then puts it in {@code status} with {@code errorCode}. */
	long job(String type, JobStatus status, String errorCode) {
		long id = this.harness.queue.enqueue(type, Map.of("n", type));
		if (status != JobStatus.PENDING) {
			boolean finished = status.isFinal();
			this.db.execute("UPDATE jobs SET status = ?, error_code = ?, finished_at = ? WHERE id = ?",
					status.dbValue(), errorCode, finished ? this.db.timestamp(this.clock.instant()) : null, id);
			if (finished) {
				this.db.execute(
						"INSERT INTO job_attempts (job_id, run, attempt, worker_id, started_at, finished_at, "
								+ "outcome) VALUES (?, 1, 1, 'w', ?, ?, ?)",
						id, this.db.timestamp(this.clock.instant()), this.db.timestamp(this.clock.instant()),
						status.name());
			}
		}
		this.clock.advance(Duration.ofSeconds(1));
		return id;
	}

	/** Every job's status and events, to compare before and after. */
	Map<Long, String> state() {
		Map<Long, String> state = new TreeMap<>();
		for (Object id : this.db.column("SELECT id FROM jobs ORDER BY id")) {
			long job = ((Number) id).longValue();
			state.put(job, this.db.column("SELECT status FROM jobs WHERE id = ?", job).get(0) + " "
					+ this.db.column("SELECT event FROM job_events WHERE job_id = ? ORDER BY id", job));
		}
		return state;
	}

	List<Object> events(long id) {
		return this.db.column("SELECT event FROM job_events WHERE job_id = ? ORDER BY id", id);
	}

	@Test
	void aBulkRetryRetriesEachMatchingJobOnceWithItsEventAndTouchesNothingElse() {
		List<Long> matching = new ArrayList<>();
		List<Long> others = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			matching.add(job("pay", JobStatus.FAILED, "DEPENDENCY:PAYMENT_API"));
			if (i % 3 == 0) {
				others.add(job("pay", JobStatus.FAILED, "TIMEOUT:HANDLER"));
				others.add(job("mail", JobStatus.FAILED, "DEPENDENCY:PAYMENT_API"));
				others.add(job("pay", JobStatus.CANCELLED, "DEPENDENCY:PAYMENT_API"));
				others.add(job("pay", JobStatus.PENDING, null));
			}
		}
		Map<Long, String> before = state();

		BulkResult dryRun = this.harness.queue.bulk(BulkRequest.retry(PAYMENT_FAILURES).dryRun());
		assertThat(dryRun.matched()).isEqualTo(7);
		assertThat(dryRun.applied()).isZero();
		assertThat(state()).isEqualTo(before);

		BulkResult result = this.harness.queue.bulk(BulkRequest.retry(PAYMENT_FAILURES).batchSize(3));
		assertThat(result.applied()).isEqualTo(7);
		assertThat(result.skipped()).isZero();
		assertThat(result.batches()).isEqualTo(3);
		for (long id : matching) {
			assertThat(this.harness.queue.find(id).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
			assertThat(events(id)).containsExactly("ENQUEUED", "RETRIED");
		}
		Map<Long, String> after = state();
		for (long id : others) {
			assertThat(after.get(id)).isEqualTo(before.get(id));
		}
		assertThat(this.harness.queue.bulk(BulkRequest.retry(PAYMENT_FAILURES)).matched()).isZero();
	}

	@Test
	void aJobThatChangedBetweenItsSelectionAndItsBatchIsLeftAlone() {
		List<Long> failed = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			failed.add(job("pay", JobStatus.FAILED, "DEPENDENCY:PAYMENT_API"));
		}
		List<Long> selected = this.db.admin()
			.selectForBulk(BulkAction.RETRY, PAYMENT_FAILURES, 0, this.db.admin().lastJobId(), 10);
		assertThat(selected).containsExactlyElementsOf(failed);
		// Meanwhile someone retries one job by hand and cancels another's retry.
		assertThat(this.harness.queue.retry(failed.get(1))).isTrue();
		assertThat(this.harness.queue.retry(failed.get(2))).isTrue();
		assertThat(this.harness.queue.cancel(failed.get(2))).isTrue();

		List<Long> changed = this.db.admin()
			.applyBulk(BulkAction.RETRY, PAYMENT_FAILURES, selected, this.clock.instant());

		assertThat(changed).containsExactly(failed.get(0), failed.get(3));
		assertThat(events(failed.get(1))).containsExactly("ENQUEUED", "RETRIED");
		assertThat(events(failed.get(2))).containsExactly("ENQUEUED", "RETRIED", "CANCELLED");
		assertThat(this.harness.queue.find(failed.get(2)).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
	}

	@Test
	void aBulkCancelCancelsUnstartedJobsAndAsksRunningOnesToStopOnce() {
		long pending = job("sync", JobStatus.PENDING, null);
		long running = job("sync", JobStatus.RUNNING, null);
		long succeeded = job("sync", JobStatus.SUCCEEDED, null);
		long otherType = job("mail", JobStatus.PENDING, null);
		JobFilter sync = JobFilter.any().type("sync");

		assertThat(this.harness.queue.bulk(BulkRequest.cancel(sync).dryRun()).matched()).isEqualTo(2);
		BulkResult result = this.harness.queue.bulk(BulkRequest.cancel(sync));

		assertThat(result.applied()).isEqualTo(2);
		assertThat(events(pending)).containsExactly("ENQUEUED", "CANCELLED");
		assertThat(this.harness.queue.find(pending).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(events(running)).containsExactly("ENQUEUED", "CANCEL_REQUESTED");
		assertThat(events(succeeded)).containsExactly("ENQUEUED");
		assertThat(this.harness.queue.find(otherType).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		// A running job already asked to stop is not asked again.
		assertThat(this.harness.queue.bulk(BulkRequest.cancel(sync)).applied()).isZero();
		assertThat(events(running)).containsExactly("ENQUEUED", "CANCEL_REQUESTED");
	}

	@Test
	void aBulkDeleteDeletesOnlyFinishedJobs() {
		Instant start = this.clock.instant();
		long pending = job("report", JobStatus.PENDING, null);
		long running = job("report", JobStatus.RUNNING, null);
		long succeeded = job("report", JobStatus.SUCCEEDED, null);
		long failed = job("report", JobStatus.FAILED, "INTERNAL:IllegalStateException");
		long cancelled = job("report", JobStatus.CANCELLED, null);
		long otherType = job("mail", JobStatus.SUCCEEDED, null);
		JobFilter reports = JobFilter.any().type("report").enqueuedBetween(start, this.clock.instant());

		assertThat(this.harness.queue.bulk(BulkRequest.delete(reports).dryRun()).matched()).isEqualTo(3);
		BulkResult result = this.harness.queue.bulk(BulkRequest.delete(reports).batchSize(2));

		assertThat(result.applied()).isEqualTo(3);
		assertThat(result.batches()).isEqualTo(2);
		assertThat(this.db.column("SELECT id FROM jobs ORDER BY id").stream().map((id) -> ((Number) id).longValue()))
			.containsExactly(pending, running, otherType);
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE job_id IN (?, ?, ?)", succeeded, failed,
				cancelled))
			.isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_attempts WHERE job_id NOT IN (SELECT id FROM jobs)"))
			.as("attempts left without their job")
			.isZero();
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> this.harness.queue.bulk(BulkRequest.delete(reports.status(JobStatus.PENDING))))
			.withMessageContaining("applies to succeeded, failed or cancelled jobs, not to pending ones");
	}

	@Test
	void aBulkDeleteFollowsTheFinishedBetweenRange() {
		long early = job("report", JobStatus.SUCCEEDED, null);
		Instant cut = this.clock.instant();
		long late = job("report", JobStatus.SUCCEEDED, null);

		BulkResult result = this.harness.queue.bulk(BulkRequest.delete(JobFilter.any().finishedBetween(null, cut)));

		assertThat(result.applied()).isEqualTo(1);
		assertThat(this.harness.queue.find(early)).isEmpty();
		assertThat(this.harness.queue.find(late)).isPresent();
	}

	@Test
	void aBulkRetrySkipsAJobWhoseDedupKeyAnUnfinishedJobHolds() {
		long first = this.harness.queue.enqueue(JobRequest.of("pay", 1).dedupKey("order-7"));
		this.db.execute("UPDATE jobs SET status = 'failed', finished_at = ? WHERE id = ?",
				this.db.timestamp(this.clock.instant()), first);
		long second = this.harness.queue.enqueue(JobRequest.of("pay", 2).dedupKey("order-7"));
		long free = job("pay", JobStatus.FAILED, null);

		BulkResult result = this.harness.queue.bulk(BulkRequest.retry(JobFilter.any().type("pay")));

		assertThat(result.matched()).isEqualTo(2);
		assertThat(result.applied()).isEqualTo(1);
		assertThat(result.skipped()).isEqualTo(1);
		assertThat(this.harness.queue.find(first).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
		assertThat(this.harness.queue.find(second).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		assertThat(this.harness.queue.find(free).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
	}

	@Test
	void anActionOverTheBoundIsRefusedUnlessConfirmed() {
		for (int i = 0; i < 3; i++) {
			job("pay", JobStatus.FAILED, "DEPENDENCY:PAYMENT_API");
		}
		BulkActions actions = new BulkActions(this.db.admin(), this.clock, 2);
		Map<Long, String> before = state();

		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> actions.run(BulkRequest.retry(PAYMENT_FAILURES), QueueSignals.NONE))
			.withMessageContaining("A bulk retry of 3 jobs")
			.withMessageContaining("is more than 2");
		assertThat(state()).isEqualTo(before);
		assertThat(actions.run(BulkRequest.retry(PAYMENT_FAILURES).dryRun(), QueueSignals.NONE).matched()).isEqualTo(3);
		assertThat(actions.run(BulkRequest.retry(PAYMENT_FAILURES).confirmed(), QueueSignals.NONE).applied())
			.isEqualTo(3);
	}

}
