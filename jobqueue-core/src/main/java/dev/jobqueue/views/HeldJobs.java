package dev.jobqueue.views;

import java.util.List;

/**
 * Jobs held until their enqueuer's commit ({@code jobqueue.enqueue.visibility =
 * after-commit}) that, by their age, will not come: an operator releases or deletes them.
 *
 * @param count how many there are
 * @param oldest the first enqueued, up to the limit asked for
 */
public record HeldJobs(long count, List<JobSummary> oldest) {

	public HeldJobs {
		oldest = List.copyOf(oldest);
	}

}
