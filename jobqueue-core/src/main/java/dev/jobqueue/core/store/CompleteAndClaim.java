package dev.jobqueue.core.store;

import java.util.List;

/**
 * What {@link JobStore#completeAndClaim} did in its one transaction.
 *
 * @param applied for each completion, whether it applied (see {@link JobStore#complete})
 * @param claimed the jobs claimed after the outcomes were written
 */
public record CompleteAndClaim(boolean[] applied, List<ClaimedJob> claimed) {
}
