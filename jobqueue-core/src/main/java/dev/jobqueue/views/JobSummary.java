package dev.jobqueue.views;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.jobqueue.JobStatus;

/**
 * A job in a list: its state without payload or result.
 *
 * @param id the job's id
 * @param type the job type
 * @param status its status
 * @param priority higher runs first
 * @param attempts attempts used
 * @param maxAttempts attempts it may use
 * @param createdAt when it was enqueued
 * @param runAt when it is (or was) due; for a retry, the end of its backoff
 * @param startedAt claim time of its latest run, or {@code null}
 * @param finishedAt when it reached a final status, or {@code null}
 * @param workerId worker of its latest run, or {@code null}
 * @param heartbeatAt latest proof of life of its running worker, or {@code null}
 * @param errorCode code of its latest failure, or {@code null}
 * @param key its key ({@link dev.jobqueue.JobRequest#key(String)}), or {@code null}; a
 * key is shown in every list, whatever the value policy
 */
public record JobSummary(long id, String type, JobStatus status, int priority, int attempts, int maxAttempts,
		Instant createdAt, Instant runAt, @Nullable Instant startedAt, @Nullable Instant finishedAt,
		@Nullable String workerId, @Nullable Instant heartbeatAt, @Nullable String errorCode, @Nullable String key) {

}
