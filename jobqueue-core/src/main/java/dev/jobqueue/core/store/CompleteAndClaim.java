package dev.jobqueue.core.store;

import java.time.Instant;
import java.util.List;

/**
 * What {@link JobStore#completeAndClaim} did in its one transaction.
 *
 * @param applied for each completion, whether it applied (see {@link JobStore#complete})
 * @param claimed the jobs claimed after the outcomes were written
 * @param throttledUntil when a job that a rate limit held back in this claim may start at
 * the earliest (a permit of a full window frees up), or {@code null} when no rate limit
 * held a job back: the worker claims again then, not at its next poll
 */
public record CompleteAndClaim(boolean[] applied, List<ClaimedJob> claimed, Instant throttledUntil) {

	/** Outcomes and a claim that no rate limit held back. */
	public CompleteAndClaim(boolean[] applied, List<ClaimedJob> claimed) {
		this(applied, claimed, null);
	}

}
