package dev.jobqueue.views;

import org.jspecify.annotations.Nullable;

/**
 * One key of a type.
 *
 * @param key the key
 * @param pending its pending jobs, due or not: its backlog
 * @param due those of them due now
 * @param running its running jobs
 * @param failed its jobs that failed for good
 * @param failedJobId the first (lowest id) of its failed jobs, or {@code null}
 * @param blocked whether a failed job holds back its other jobs (an ordered type that
 * blocks on failure): retrying or deleting {@code failedJobId}, and any other failed job
 * of the key, releases it
 */
public record KeyState(String key, long pending, long due, long running, long failed, @Nullable Long failedJobId,
		boolean blocked) {

}
