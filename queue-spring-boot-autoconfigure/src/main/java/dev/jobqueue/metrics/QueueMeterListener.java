package dev.jobqueue.metrics;

import java.time.Duration;
import java.util.Locale;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.WorkerListener;

/**
 * The worker's own meters, recorded as runs end (names as Prometheus shows them):
 * <ul>
 * <li>{@code jobqueue_queue_wait_seconds{type,outcome}}: from due time to claim.</li>
 * <li>{@code jobqueue_completed_total{type,outcome}}: runs whose outcome was written.
 * Outcomes are {@code succeeded}, {@code retry}, {@code failed}, {@code snoozed},
 * {@code cancelled} and {@code handed_back}.</li>
 * <li>{@code jobqueue_completions_stale_total{type}}: outcomes rejected because the run
 * had lost its job.</li>
 * <li>{@code jobqueue_claim_batch_size}: jobs per claim that found work (empty polls are
 * not recorded).</li>
 * </ul>
 * Meters are registered in the registry this binder is bound to; events before that are
 * not recorded. How long handlers ran is not timed here: the {@code jobqueue.job}
 * observation of each run times it once
 * ({@code jobqueue_job_seconds{type,outcome,error}}), as Boot times scheduled tasks.
 */
public class QueueMeterListener implements WorkerListener, MeterBinder {

	private volatile Meters meters;

	@Override
	public void bindTo(MeterRegistry registry) {
		this.meters = new Meters(Timer.builder("jobqueue.queue.wait")
			.description(
					"How long jobs waited from their due time until a worker started them, time claimed ahead included")
			.withRegistry(registry),
				Counter.builder("jobqueue.completed")
					.description("Job runs whose outcome was written")
					.withRegistry(registry),
				Counter.builder("jobqueue.completions.stale")
					.description("Run outcomes rejected because the run no longer held its job")
					.withRegistry(registry),
				DistributionSummary.builder("jobqueue.claim.batch.size")
					.description("Jobs per claim that found work")
					.register(registry));
	}

	@Override
	public void claimed(int count) {
		Meters current = this.meters;
		if (current != null && count > 0) {
			current.claimBatch.record(count);
		}
	}

	@Override
	public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
		Meters current = this.meters;
		if (current == null) {
			return;
		}
		String outcome = outcome(completion.kind());
		current.queueWait.withTags("type", job.type(), "outcome", outcome).record(queueWait);
		current.completed.withTags("type", job.type(), "outcome", outcome).increment();
	}

	@Override
	public void staleCompletion(ClaimedJob job, Completion completion) {
		Meters current = this.meters;
		if (current != null) {
			current.stale.withTags("type", job.type()).increment();
		}
	}

	/** The {@code outcome} tag value of a completion kind. */
	public static String outcome(Completion.Kind kind) {
		return kind.name().toLowerCase(Locale.ROOT);
	}

	private record Meters(MeterProvider<Timer> queueWait, MeterProvider<Counter> completed,
			MeterProvider<Counter> stale, DistributionSummary claimBatch) {

	}

}
