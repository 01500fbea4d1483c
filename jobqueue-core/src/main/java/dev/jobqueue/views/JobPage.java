package dev.jobqueue.views;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A page of jobs, newest first.
 *
 * @param jobs the jobs
 * @param nextBefore pass as {@code before} for the next page; {@code null} on the last
 * page
 */
public record JobPage(List<JobSummary> jobs, @Nullable Long nextBefore) {

	public JobPage {
		jobs = List.copyOf(jobs);
	}

}
