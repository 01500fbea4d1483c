package dev.jobqueue.core.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import dev.jobqueue.ErrorCodes;

/**
 * The outcome of one run, to be written. Writes are fenced by {@code run}: they apply
 * only while the job is still running under that claim.
 *
 * @param jobId the job
 * @param run the claim number the outcome belongs to
 * @param type the job's type, as claimed: the store counts the finished job under it
 * without reading it again
 * @param kind what happened
 * @param result the result as JSON, for {@link Kind#SUCCEEDED}
 * @param errorCode {@code CATEGORY:SUBCATEGORY} for failures
 * @param errorDetail short failure summary
 * @param nextRunAt when to run again, for {@link Kind#RETRY} and {@link Kind#SNOOZED}
 * @param errorTrace the failure's stack trace, bounded, kept with the attempt; or
 * {@code null}
 * @param next for {@link Kind#SUCCEEDED}: the continuation the handler asked for
 * ({@link dev.jobqueue.JobContext#continueWith}), to insert in the same transaction only
 * if this completion applies, and only if no cancel of the job was asked for. Their
 * {@link NewJob#chainIndex()} counts from this job (1 = the next step); the completing
 * job joins the chain as its first step (chain id = its own id, index 0) if it was in
 * none. {@link NewJob#afterInBatch()} refers to positions in this list. Empty for none.
 */
public record Completion(long jobId, int run, String type, Kind kind, String result, String errorCode,
		String errorDetail, Instant nextRunAt, String errorTrace, List<NewJob> next) {

	public Completion {
		Objects.requireNonNull(type, "'type' must not be null");
		next = (next != null) ? List.copyOf(next) : List.of();
	}

	public Completion(long jobId, int run, String type, Kind kind, String result, String errorCode, String errorDetail,
			Instant nextRunAt, String errorTrace) {
		this(jobId, run, type, kind, result, errorCode, errorDetail, nextRunAt, errorTrace, List.of());
	}

	public Completion(long jobId, int run, String type, Kind kind, String result, String errorCode, String errorDetail,
			Instant nextRunAt) {
		this(jobId, run, type, kind, result, errorCode, errorDetail, nextRunAt, null, List.of());
	}

	/** The outcome of {@code job}'s run, as claimed. */
	private Completion(ClaimedJob job, Kind kind, String result, String errorCode, String errorDetail,
			Instant nextRunAt) {
		this(job.id(), job.run(), job.type(), kind, result, errorCode, errorDetail, nextRunAt);
	}

	/** This outcome with the failure's stack trace. */
	public Completion withErrorTrace(String trace) {
		return new Completion(this.jobId, this.run, this.type, this.kind, this.result, this.errorCode, this.errorDetail,
				this.nextRunAt, trace, this.next);
	}

	/** This success with the jobs to create with it; see {@link #next()}. */
	public Completion withNext(List<NewJob> jobs) {
		return new Completion(this.jobId, this.run, this.type, this.kind, this.result, this.errorCode, this.errorDetail,
				this.nextRunAt, this.errorTrace, jobs);
	}

	/** What happened to a run. */
	public enum Kind {

		/** The handler returned. */
		SUCCEEDED,
		/** The handler failed and the job has attempts left. */
		RETRY,
		/** The handler failed for good. */
		FAILED,
		/** The handler asked to run again later; the attempt is given back. */
		SNOOZED,
		/** The job was cancelled while it ran. */
		CANCELLED,
		/** The worker stopped before the run ended; the attempt is given back. */
		HANDED_BACK

	}

	public static Completion succeeded(ClaimedJob job, String result) {
		return new Completion(job, Kind.SUCCEEDED, result, null, null, null);
	}

	public static Completion retry(ClaimedJob job, String errorCode, String errorDetail, Instant nextRunAt) {
		return new Completion(job, Kind.RETRY, null, errorCode, errorDetail, nextRunAt);
	}

	public static Completion failed(ClaimedJob job, String errorCode, String errorDetail) {
		return new Completion(job, Kind.FAILED, null, errorCode, errorDetail, null);
	}

	public static Completion snoozed(ClaimedJob job, Instant nextRunAt) {
		return new Completion(job, Kind.SNOOZED, null, null, null, nextRunAt);
	}

	public static Completion cancelled(ClaimedJob job) {
		return new Completion(job, Kind.CANCELLED, null, ErrorCodes.CANCELLED_BY_REQUEST, null, null);
	}

	public static Completion handedBack(ClaimedJob job, Instant nextRunAt) {
		return new Completion(job, Kind.HANDED_BACK, null, null, null, nextRunAt);
	}

	/**
	 * A job claimed ahead that never started, handed back at its own due time so it keeps
	 * its place; the detail goes on the attempt and the {@code HANDED_BACK} event.
	 */
	public static Completion handedBackUnstarted(ClaimedJob job, String detail) {
		return new Completion(job, Kind.HANDED_BACK, null, null, detail, job.runAt());
	}

}
