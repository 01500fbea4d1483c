package dev.jobqueue.actuate;

import java.time.Duration;
import java.time.Instant;

import dev.jobqueue.JobStatus;
import dev.jobqueue.views.JobSummary;

/**
 * A job in a list of the {@link QueueEndpoint}: its state without payload or result.
 *
 * @param id its id
 * @param type its type
 * @param key its key ({@code JobRequest.key}), or {@code null}
 * @param status its status
 * @param priority higher runs first
 * @param attempts attempts used
 * @param maxAttempts attempts it may use
 * @param createdAt when it was enqueued
 * @param runAt when it is or was due
 * @param startedAt claim time of its latest run
 * @param finishedAt when it finished
 * @param workerId worker of its latest run
 * @param heartbeatAt latest heartbeat of its running worker
 * @param errorCode code of its latest failure
 * @param waitingSeconds for a due pending job, seconds since it was due
 * @param runningSeconds for a running job, seconds since it was claimed
 * @param heartbeatAgeSeconds for a running job, seconds since its last heartbeat
 */
public record JobView(long id, String type, String key, String status, int priority, int attempts, int maxAttempts,
		Instant createdAt, Instant runAt, Instant startedAt, Instant finishedAt, String workerId, Instant heartbeatAt,
		String errorCode, Double waitingSeconds, Double runningSeconds, Double heartbeatAgeSeconds) {

	static JobView of(JobSummary job, Instant now) {
		boolean running = job.status() == JobStatus.RUNNING;
		boolean due = job.status() == JobStatus.PENDING && !job.runAt().isAfter(now);
		return new JobView(job.id(), job.type(), job.key(), job.status().dbValue(), job.priority(), job.attempts(),
				job.maxAttempts(), job.createdAt(), job.runAt(), job.startedAt(), job.finishedAt(), job.workerId(),
				job.heartbeatAt(), job.errorCode(), due ? secondsSince(job.runAt(), now) : null,
				running ? secondsSince(job.startedAt(), now) : null,
				running ? secondsSince(job.heartbeatAt(), now) : null);
	}

	private static Double secondsSince(Instant instant, Instant now) {
		if (instant == null) {
			return null;
		}
		return Math.max(0, Duration.between(instant, now).toMillis()) / 1000.0;
	}

}
