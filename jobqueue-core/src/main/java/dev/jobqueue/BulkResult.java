package dev.jobqueue;

/**
 * What a bulk action did ({@link JobQueue#bulk(BulkRequest)}).
 *
 * @param action what it did to each job
 * @param filter the jobs it was asked for
 * @param dryRun whether it only counted
 * @param matched the jobs the action applied to when it started (matching the filter and
 * in a status the action applies to)
 * @param applied the jobs it changed (0 on a dry run)
 * @param skipped the matched jobs it left alone: changed meanwhile so they no longer
 * matched, or (a retry) whose dedup key another unfinished job holds
 * @param batches the transactions it took
 */
public record BulkResult(BulkAction action, JobFilter filter, boolean dryRun, long matched, long applied, long skipped,
		int batches) {

}
