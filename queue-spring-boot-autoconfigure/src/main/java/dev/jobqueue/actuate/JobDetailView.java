package dev.jobqueue.actuate;

import java.time.Instant;
import java.util.List;

import dev.jobqueue.views.Attempt;
import dev.jobqueue.views.Event;
import dev.jobqueue.views.JobDetail;
import dev.jobqueue.views.JobLinks;
import dev.jobqueue.views.JobProgress;
import dev.jobqueue.views.Step;
import dev.jobqueue.views.Text;
import dev.jobqueue.views.ValuePolicy;

/**
 * One job in full ({@code GET /actuator/jobqueue/{id}}), its values hidden unless they
 * are shown to the caller.
 *
 * @param job its state
 * @param leaseUntil until when its running worker holds it
 * @param errorDetail summary of its latest failure ({@value #HIDDEN} unless values are
 * shown)
 * @param dedupKey its deduplication key ({@value #HIDDEN} unless values are shown)
 * @param cancelRequested whether a cancel of the running job was asked for
 * @param traceParent the W3C traceparent current at enqueue
 * @param payload payload length and preview (its length only, unless values are shown)
 * @param result result length and preview (its length only, unless values are shown)
 * @param attempts every run (error details hidden unless values are shown)
 * @param events its timeline, oldest first (details hidden unless values are shown)
 * @param progress the latest progress its handler reported ({@code JobContext.progress}),
 * or {@code null} (its message hidden unless values are shown)
 * @param chain the chain the job is a step of, with its steps, or {@code null}
 * @param dependencies what the job waits for and what waits for it, or {@code null} when
 * neither
 * @param steps its recorded durable steps ({@code JobContext.step}), in the order they
 * were recorded (each result's length only, unless values are shown)
 */
public record JobDetailView(JobView job, Instant leaseUntil, String errorDetail, String dedupKey,
		boolean cancelRequested, String traceParent, Text payload, Text result, List<Attempt> attempts,
		List<Event> events, JobProgress progress, ChainView chain, DependenciesView dependencies, List<Step> steps) {

	/** What hidden values are replaced with, as Boot's sanitizer does. */
	static final String HIDDEN = ValuePolicy.HIDDEN_VALUE;

	/** The endpoint's view of a job read with the caller's value policy. */
	static JobDetailView of(JobDetail detail, Instant now) {
		return new JobDetailView(JobView.of(detail.job(), now), detail.leaseUntil(), detail.errorDetail(),
				detail.dedupKey(), detail.cancelRequested(), detail.traceParent(), detail.payload(), detail.result(),
				detail.attempts(), detail.events(), detail.progress(), ChainView.of(detail.links(), now),
				DependenciesView.of(detail.links(), now), detail.steps());
	}

	/**
	 * A job's chain (docs/chains.md).
	 *
	 * @param chainId the chain's id (its first step's id)
	 * @param chainIndex this job's step, 0 first
	 * @param length how many jobs the chain has
	 * @param steps its steps by index (at most {@link JobLinks#MAX_LISTED})
	 */
	public record ChainView(long chainId, int chainIndex, long length, List<JobView> steps) {

		static ChainView of(JobLinks links, Instant now) {
			if (links.chainId() == null) {
				return null;
			}
			return new ChainView(links.chainId(), (links.chainIndex() != null) ? links.chainIndex() : 0,
					links.chainLength(), links.chainSteps().stream().map((step) -> JobView.of(step, now)).toList());
		}

	}

	/**
	 * What a job waits for and what waits for it.
	 *
	 * @param unfinished how many of the jobs it waits for are unfinished (0 unless it is
	 * waiting)
	 * @param onDependencyFailure what it does when one of them fails or is cancelled, or
	 * {@code null} when it waits for nothing
	 * @param waitsForCount how many jobs it waits (or waited) for
	 * @param waitsFor those jobs (at most {@link JobLinks#MAX_LISTED})
	 * @param waitedByCount how many jobs wait (or waited) for it
	 * @param waitedBy those jobs (at most {@link JobLinks#MAX_LISTED})
	 */
	public record DependenciesView(int unfinished, String onDependencyFailure, long waitsForCount,
			List<JobView> waitsFor, long waitedByCount, List<JobView> waitedBy) {

		static DependenciesView of(JobLinks links, Instant now) {
			if (links.waitsForCount() == 0 && links.waitedByCount() == 0) {
				return null;
			}
			return new DependenciesView(links.unfinishedDependencies(),
					(links.dependencyPolicy() != null) ? links.dependencyPolicy().dbValue() : null,
					links.waitsForCount(), links.waitsFor().stream().map((job) -> JobView.of(job, now)).toList(),
					links.waitedByCount(), links.waitedBy().stream().map((job) -> JobView.of(job, now)).toList());
		}

	}

}
