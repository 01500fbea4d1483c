package dev.jobqueue.core.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.core.EnqueueLimits;

/**
 * A validated job ready to insert.
 *
 * <p>
 * Dependencies: a job with a non-empty {@code after} or {@code afterInBatch} is inserted
 * {@code waiting}, with its count of unfinished dependencies; the store counts the
 * dependencies already finished at once (a succeeded one, or any finished one under
 * {@link DependencyPolicy#RUN}), applies the policy for one already failed or cancelled,
 * and inserts it {@code pending} when nothing is left to wait for.
 *
 * <p>
 * Chains: in {@link JobStore#enqueue}, the jobs of one call with a non-null
 * {@code chainIndex} form one new chain whose id is the id of the first of them. In a
 * {@link Completion#next() continuation}, {@code chainIndex} counts from the completing
 * job (1 is the step right after it) and the chain is the completing job's.
 *
 * @param type the job type
 * @param payload the payload as JSON
 * @param priority higher runs first
 * @param runAt when it is due
 * @param maxAttempts attempts it may use
 * @param dedupKey the deduplication key, or {@code null}
 * @param traceContext the propagation headers of the trace current at enqueue in their
 * stored form (see {@link TraceHeaders}), or {@code null}
 * @param after ids of existing jobs to wait for, without duplicates (at most
 * {@link EnqueueLimits#MAX_DEPENDENCIES}); each must exist in this queue's tables, or the
 * whole enqueue fails
 * @param afterInBatch positions, in the same list passed to the store, of earlier jobs to
 * wait for (a fan-out's join waits for its children this way)
 * @param dependencyPolicy what the job does when a job it waits for fails or is cancelled
 * @param chainIndex the job's step in a chain (see above), or {@code null} for none
 * @param key the job's key, or {@code null}
 */
public record NewJob(String type, String payload, int priority, Instant runAt, int maxAttempts, String dedupKey,
		String traceContext, List<Long> after, List<Integer> afterInBatch, DependencyPolicy dependencyPolicy,
		Integer chainIndex, String key) {

	public NewJob {
		after = (after != null) ? List.copyOf(after) : List.of();
		afterInBatch = (afterInBatch != null) ? List.copyOf(afterInBatch) : List.of();
		dependencyPolicy = Objects.requireNonNullElse(dependencyPolicy, DependencyPolicy.CANCEL);
	}

	/** A job without a key. */
	public NewJob(String type, String payload, int priority, Instant runAt, int maxAttempts, String dedupKey,
			String traceContext, List<Long> after, List<Integer> afterInBatch, DependencyPolicy dependencyPolicy,
			Integer chainIndex) {
		this(type, payload, priority, runAt, maxAttempts, dedupKey, traceContext, after, afterInBatch, dependencyPolicy,
				chainIndex, null);
	}

	/** A job without a key that waits for nothing and is in no chain. */
	public NewJob(String type, String payload, int priority, Instant runAt, int maxAttempts, String dedupKey,
			String traceContext) {
		this(type, payload, priority, runAt, maxAttempts, dedupKey, traceContext, List.of(), List.of(),
				DependencyPolicy.CANCEL, null, null);
	}

	/** This job with {@code key} as its key. */
	public NewJob withKey(String key) {
		return new NewJob(this.type, this.payload, this.priority, this.runAt, this.maxAttempts, this.dedupKey,
				this.traceContext, this.after, this.afterInBatch, this.dependencyPolicy, this.chainIndex, key);
	}

	/** Whether the job waits for any other job. */
	public boolean waits() {
		return !this.after.isEmpty() || !this.afterInBatch.isEmpty();
	}

	/** This job waiting for the jobs at these positions of the same batch. */
	public NewJob withAfterInBatch(List<Integer> positions) {
		return new NewJob(this.type, this.payload, this.priority, this.runAt, this.maxAttempts, this.dedupKey,
				this.traceContext, this.after, positions, this.dependencyPolicy, this.chainIndex, this.key);
	}

	/** This job as a step of a chain (see the class comment for what the index means). */
	public NewJob withChainIndex(Integer index) {
		return new NewJob(this.type, this.payload, this.priority, this.runAt, this.maxAttempts, this.dedupKey,
				this.traceContext, this.after, this.afterInBatch, this.dependencyPolicy, index, this.key);
	}

}
