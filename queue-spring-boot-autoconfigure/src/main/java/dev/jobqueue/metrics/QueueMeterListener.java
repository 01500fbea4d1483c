package dev.jobqueue.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.jobqueue.core.worker.RunOutcome;
import dev.jobqueue.core.worker.RunOutcomeListener;

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
public class QueueMeterListener implements RunOutcomeListener, MeterBinder {

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
	public void finished(String type, RunOutcome outcome, Duration queueWait, Duration execution) {
		Meters current = this.meters;
		if (current == null) {
			return;
		}
		OutcomeMeters meters = current.of(type, outcome);
		meters.queueWait.record(queueWait);
		meters.completed.increment();
	}

	@Override
	public void staleCompletion(String type) {
		Meters current = this.meters;
		if (current != null) {
			current.stale.withTags("type", type).increment();
		}
	}

	/** The {@code outcome} tag value of a run's outcome. */
	public static String outcome(RunOutcome outcome) {
		return outcome.tag();
	}

	private record Meters(MeterProvider<Timer> queueWait, MeterProvider<Counter> completed,
			MeterProvider<Counter> stale, DistributionSummary claimBatch, Map<String, OutcomeMeters[]> byType) {

		private static final RunOutcome[] KINDS = RunOutcome.values();

		Meters(MeterProvider<Timer> queueWait, MeterProvider<Counter> completed, MeterProvider<Counter> stale,
				DistributionSummary claimBatch) {
			this(queueWait, completed, stale, claimBatch, new ConcurrentHashMap<>());
		}

		/**
		 * The meters of one type and outcome, looked up in the registry once: every run
		 * records into them, and a lookup builds its id and tags anew each time. Types
		 * are the registered handlers', so the map stays as small as the meters' own
		 * tags.
		 */
		OutcomeMeters of(String type, RunOutcome kind) {
			OutcomeMeters[] byKind = this.byType.computeIfAbsent(type, (key) -> new OutcomeMeters[KINDS.length]);
			OutcomeMeters meters = byKind[kind.ordinal()];
			if (meters == null) {
				// Two threads may both look up a new pair: the registry gives both the
				// same
				// meters.
				String outcome = outcome(kind);
				meters = new OutcomeMeters(this.queueWait.withTags("type", type, "outcome", outcome),
						this.completed.withTags("type", type, "outcome", outcome));
				byKind[kind.ordinal()] = meters;
			}
			return meters;
		}

	}

	private record OutcomeMeters(Timer queueWait, Counter completed) {

	}

}
