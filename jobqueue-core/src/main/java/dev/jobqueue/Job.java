package dev.jobqueue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A job as stored: its current state, the last attempt's worker and error, and its
 * result.
 *
 * @param id the job's id
 * @param type the job type
 * @param status where the job is in its life
 * @param priority higher runs first
 * @param payload the payload as JSON
 * @param result the handler's return value as JSON, or {@code null}
 * @param dedupKey the deduplication key, or {@code null}
 * @param attempts attempts used so far (snoozes and hand-backs at shutdown do not count)
 * @param maxAttempts attempts the job may use
 * @param runAt when the job is (or was) due
 * @param createdAt when it was enqueued
 * @param startedAt when its latest run was claimed, or {@code null}
 * @param finishedAt when it reached a final status, or {@code null}
 * @param workerId the worker of the latest run, or {@code null}
 * @param heartbeatAt the latest proof of life of the running worker, or {@code null}
 * @param leaseUntil until when the running worker holds the job, or {@code null}
 * @param errorCode {@code CATEGORY:SUBCATEGORY} of the latest failure, or {@code null}
 * @param errorDetail a short summary of the latest failure, or {@code null}
 * @param cancelRequested whether a cancel of the running job was asked for
 * @param chainId the chain the job is a step of (the first step's id), or {@code null}
 * @param chainIndex its step in the chain (0 for the first), or {@code null}
 * @param unfinishedDependencies how many of the jobs it waits for are unfinished (0 once
 * it is no longer {@link JobStatus#WAITING waiting})
 * @param key the job's key ({@link JobRequest#key(String)}), or {@code null}
 */
public record Job(long id, String type, JobStatus status, int priority, String payload, @Nullable String result,
		@Nullable String dedupKey, int attempts, int maxAttempts, Instant runAt, Instant createdAt,
		@Nullable Instant startedAt, @Nullable Instant finishedAt, @Nullable String workerId,
		@Nullable Instant heartbeatAt, @Nullable Instant leaseUntil, @Nullable String errorCode,
		@Nullable String errorDetail, boolean cancelRequested, @Nullable Long chainId, @Nullable Integer chainIndex,
		int unfinishedDependencies, @Nullable String key) {

	/** A job without a key. */
	public Job(long id, String type, JobStatus status, int priority, String payload, @Nullable String result,
			@Nullable String dedupKey, int attempts, int maxAttempts, Instant runAt, Instant createdAt,
			@Nullable Instant startedAt, @Nullable Instant finishedAt, @Nullable String workerId,
			@Nullable Instant heartbeatAt, @Nullable Instant leaseUntil, @Nullable String errorCode,
			@Nullable String errorDetail, boolean cancelRequested, @Nullable Long chainId, @Nullable Integer chainIndex,
			int unfinishedDependencies) {
		this(id, type, status, priority, payload, result, dedupKey, attempts, maxAttempts, runAt, createdAt, startedAt,
				finishedAt, workerId, heartbeatAt, leaseUntil, errorCode, errorDetail, cancelRequested, chainId,
				chainIndex, unfinishedDependencies, null);
	}

	/** A job without a key, outside any chain, that waits for nothing. */
	public Job(long id, String type, JobStatus status, int priority, String payload, @Nullable String result,
			@Nullable String dedupKey, int attempts, int maxAttempts, Instant runAt, Instant createdAt,
			@Nullable Instant startedAt, @Nullable Instant finishedAt, @Nullable String workerId,
			@Nullable Instant heartbeatAt, @Nullable Instant leaseUntil, @Nullable String errorCode,
			@Nullable String errorDetail, boolean cancelRequested) {
		this(id, type, status, priority, payload, result, dedupKey, attempts, maxAttempts, runAt, createdAt, startedAt,
				finishedAt, workerId, heartbeatAt, leaseUntil, errorCode, errorDetail, cancelRequested, null, null, 0,
				null);
	}

}
