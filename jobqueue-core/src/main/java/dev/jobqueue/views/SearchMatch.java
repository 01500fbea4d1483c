package dev.jobqueue.views;

/**
 * A job a search found.
 *
 * @param job the job
 * @param matchedOn where the text was found: {@code id}, {@code error-code}, {@code key},
 * {@code dedup-key}, {@code error-detail} or {@code payload}
 */
public record SearchMatch(JobSummary job, String matchedOn) {

}
