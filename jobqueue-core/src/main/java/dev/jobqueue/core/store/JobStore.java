package dev.jobqueue.core.store;

import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;

import dev.jobqueue.JobStep;

/**
 * Where jobs live, as the worker and the enqueuing side see them: insert, claim, record
 * outcomes, keep leases and take back what lost workers left. Operators' actions on
 * single jobs and types are on {@link JobAdminStore}. The store never reads a clock:
 * every method that needs the time takes {@code now}. Each method is one transaction;
 * implementations retry transient lock conflicts themselves, so callers see only failures
 * worth reporting.
 */
public interface JobStore {

	/**
	 * Inserts jobs, all or none. Joins the caller's transaction where the store shares
	 * it. Jobs that wait ({@link NewJob#waits()}) are inserted {@code waiting} with a row
	 * per dependency and their count of unfinished ones (see {@link NewJob}); jobs with a
	 * {@link NewJob#chainIndex()} form one new chain.
	 * @param afterCommit run once the jobs are visible to workers
	 * @return the ids in request order; a job whose dedup key matches an unfinished job
	 * yields that job's id
	 * @throws dev.jobqueue.JobQueueException naming the ids, when a job waits for an id
	 * that is no job of this queue's tables; nothing is written then
	 */
	List<Long> enqueue(List<NewJob> jobs, Instant now, Runnable afterCommit);

	/** Claims due pending jobs, highest priority first, then by due time and id. */
	List<ClaimedJob> claim(ClaimRequest request, Instant now);

	/**
	 * Writes run outcomes, all in one transaction. Every outcome that finishes a job
	 * (succeeded, failed, cancelled) also settles the jobs waiting for it, in the same
	 * transaction: one indexed update per finished job decrements its dependents' count
	 * of unfinished dependencies, flips those reaching zero to {@code pending}, and
	 * applies the {@link dev.jobqueue.DependencyPolicy} of those it failed (which may
	 * finish them and settle their own dependents in turn). A success inserts its
	 * {@link Completion#next() continuation} only if it applied.
	 * @return for each completion, whether it applied; a completion whose run no longer
	 * holds the job is rejected
	 */
	boolean[] complete(List<Completion> completions, String workerId, Instant now);

	/**
	 * Writes run outcomes, then claims, in one transaction: a busy worker pays one commit
	 * per round instead of two. The claim sees the outcomes (a job sent back to pending
	 * may be claimed again). The default runs {@link #complete} and then {@link #claim}.
	 */
	default CompleteAndClaim completeAndClaim(List<Completion> completions, String workerId, ClaimRequest request,
			Instant now) {
		boolean[] applied = complete(completions, workerId, now);
		return new CompleteAndClaim(applied, claim(request, now));
	}

	/**
	 * A token that changes when another connection or process may have written to the
	 * store, read without a query (a file's size and time, say). The worker compares it
	 * while it waits, so jobs enqueued by another process start without waiting out the
	 * poll interval. {@code null} when the store cannot tell: then only the poll interval
	 * applies.
	 */
	default Object changeToken() {
		return null;
	}

	/**
	 * Extends the leases of runs this worker holds and reports cancellations and lost
	 * runs. It says that the worker is alive, not that the handlers are: it leaves each
	 * started job's heartbeat time alone, so a handler that hangs shows as stuck (see
	 * {@link #heartbeat}). A job {@link RunningJobRef#waiting waiting} for a slot has no
	 * handler yet: its heartbeat time is set to {@code now}, so it never shows as stuck.
	 */
	LeaseRenewal renewLeases(String workerId, Collection<RunningJobRef> runs, Instant now, Instant leaseUntil);

	/**
	 * A handler's own heartbeat ({@link dev.jobqueue.JobContext#heartbeat()}): records
	 * that the handler is alive (the job's heartbeat time, which "stuck" is measured on)
	 * and extends the run's lease as {@link #renewLeases} does. The default only extends
	 * the lease.
	 */
	default LeaseRenewal heartbeat(String workerId, RunningJobRef run, Instant now, Instant leaseUntil) {
		return renewLeases(workerId, List.of(run), now, leaseUntil);
	}

	/**
	 * Takes back running jobs whose lease expired: they go back to pending with the
	 * attempt counted, or fail with
	 * {@link dev.jobqueue.ErrorCodes#LEASE_EXPIRED_NOT_REPEATABLE} or
	 * {@link dev.jobqueue.ErrorCodes#LEASE_EXPIRED_MAX_ATTEMPTS} when they must not run
	 * twice or have no attempts left; a job going back to pending records
	 * {@link dev.jobqueue.ErrorCodes#LEASE_EXPIRED_WORKER_LOST} on its attempt. A job
	 * failed this way settles the jobs waiting for it, as in {@link #complete}.
	 * @return how many jobs were taken back
	 */
	int recoverExpiredLeases(Instant now, int limit);

	/**
	 * Running jobs whose lease ended before {@code now}, as they stand (see
	 * {@link ExpiredLease}).
	 */
	List<ExpiredLease> findExpiredLeases(Instant now, int limit);

	/**
	 * Takes back the given jobs as {@link #recoverExpiredLeases(Instant, int)} does, each
	 * only if it is still running under the same run with the same lease end: a lease
	 * renewed since it was read (its worker is alive, whatever the clocks say) is left
	 * alone.
	 * @return how many jobs were taken back
	 */
	int recoverExpiredLeases(Collection<ExpiredLease> leases, Instant now);

	/**
	 * Adds an event to a job's timeline, for what the worker notices outside a transition
	 * (a handler that ignores an interrupt, for example).
	 * @param event the {@link JobEvent#name() name} of a {@link JobEvent}
	 */
	void recordEvent(long jobId, String event, String actor, String detail, Instant now);

	/**
	 * The handler of a claimed job whose type or key has a rate limit begins: its claim
	 * counted the start as claimed, not started (occupying every window until the claim's
	 * lease end, {@code leaseUntil}); now it counts from when the handler began, so that
	 * a rate limit holds by the handlers' own start times, whatever the delay from claim
	 * to start. Called only for rate-limited jobs, just before their handler. The start's
	 * time is read from {@code clock} as late as the store can, once its write may
	 * proceed: a write that waited for a lock would otherwise date the start too early.
	 * The default does nothing (a store without rate limits).
	 * @param claimedAt the claim's time
	 * @param leaseUntil the claim's lease end
	 * @param clock the worker's clock, read once for the start's time
	 */
	default void recordHandlerStart(ClaimedJob job, Instant claimedAt, Instant leaseUntil, InstantSource clock) {
	}

	/**
	 * A claimed job whose type or key has a rate limit ends this run without its handler
	 * having begun (handed back, cancelled while it waited for its thread): the start its
	 * claim counted is no start, and frees its permit. The default does nothing.
	 * @param claimedAt the claim's time
	 * @param leaseUntil the claim's lease end
	 */
	default void dropUnstartedStart(ClaimedJob job, Instant claimedAt, Instant leaseUntil) {
	}

	/**
	 * Writes a run's progress (and its heartbeat), if the run still holds its job. Stores
	 * that do not keep progress ignore it.
	 */
	default void recordProgress(RunningJobRef run, JobProgress progress) {
	}

	/**
	 * The durable steps recorded for a job ({@link dev.jobqueue.JobContext#step}), in the
	 * order they were recorded.
	 */
	List<JobStep> steps(long jobId);

	/**
	 * Records a durable step's result, in one write, if {@code run} still holds the job
	 * (running, the same run): a run that lost its lease records nothing. Joins the
	 * caller's transaction on the store's database when there is one.
	 * @param inCallerTransaction whether the record must join the caller's transaction (a
	 * transactional step): without one on this store's database, nothing is written and
	 * {@link IllegalStateException} says why
	 * @return whether it was recorded; {@code false} when the run no longer holds the job
	 */
	boolean recordStep(RunningJobRef run, JobStep step, boolean inCallerTransaction);

	/** Records that a worker is alive and which types it handles. */
	void registerWorker(WorkerInfo worker, Instant now);

	/** Removes a worker that stopped. */
	void unregisterWorker(String workerId);

}
