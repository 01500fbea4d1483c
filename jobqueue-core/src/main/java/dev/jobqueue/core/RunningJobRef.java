package dev.jobqueue.core;

/**
 * A run this worker holds.
 *
 * @param jobId the job
 * @param run its claim number
 */
public record RunningJobRef(long jobId, int run) {

}
