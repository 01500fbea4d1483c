package dev.jobqueue.views;

import org.jspecify.annotations.Nullable;

import dev.jobqueue.JobStatus;

/**
 * A filter for {@link QueueViews#jobs(JobQuery)}; {@code null} fields match everything.
 *
 * @param status jobs in this status
 * @param type jobs of this type
 * @param errorCode jobs whose latest failure has this code
 * @param key jobs with this key
 * @param before only jobs with a smaller id (the {@link JobPage#nextBefore()} of the
 * previous page)
 * @param limit page size
 */
public record JobQuery(@Nullable JobStatus status, @Nullable String type, @Nullable String errorCode,
		@Nullable String key, @Nullable Long before, int limit) {

	/** A query of jobs with or without a key. */
	public JobQuery(@Nullable JobStatus status, @Nullable String type, @Nullable String errorCode,
			@Nullable Long before, int limit) {
		this(status, type, errorCode, null, before, limit);
	}

}
