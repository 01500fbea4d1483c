package dev.jobqueue.views;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One job in full, payload and result shortened, its values shown or hidden by the
 * {@link ValuePolicy} it was read with.
 *
 * @param job its state
 * @param leaseUntil until when its running worker holds it, or {@code null}
 * @param errorDetail summary of its latest failure, or {@code null}
 * @param dedupKey its deduplication key, or {@code null}
 * @param cancelRequested whether a cancel of the running job was asked for
 * @param traceParent the W3C traceparent current at enqueue, or {@code null}
 * @param payload its payload, shortened (its length only when values are hidden)
 * @param result its result, shortened (its length only when values are hidden), or
 * {@code null}
 * @param attempts every run, in order
 * @param events its timeline, oldest first (the latest {@link #MAX_EVENTS} events)
 * @param progress the latest progress its handler reported, or {@code null}
 * @param links its chain and what it waits for; {@link JobLinks#NONE} for a job in no
 * chain that waits for nothing and that nothing waits for
 * @param steps its recorded durable steps, in the order they were recorded
 */
public record JobDetail(JobSummary job, @Nullable Instant leaseUntil, @Nullable String errorDetail,
		@Nullable String dedupKey, boolean cancelRequested, @Nullable String traceParent, Text payload,
		@Nullable Text result, List<Attempt> attempts, List<Event> events, @Nullable JobProgress progress,
		JobLinks links, List<Step> steps) {

	/** Most events returned for one job. */
	public static final int MAX_EVENTS = 200;

	public JobDetail {
		attempts = List.copyOf(attempts);
		events = List.copyOf(events);
		steps = List.copyOf(steps);
	}

}
