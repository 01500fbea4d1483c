package dev.jobqueue.views;

import java.util.List;

/**
 * Running jobs without a recent heartbeat.
 *
 * @param count how many there are
 * @param oldest the ones with the oldest heartbeat, up to the limit asked for
 */
public record StuckJobs(long count, List<JobSummary> oldest) {

	public StuckJobs {
		oldest = List.copyOf(oldest);
	}

}
