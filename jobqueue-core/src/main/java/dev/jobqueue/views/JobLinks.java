package dev.jobqueue.views;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.jobqueue.DependencyPolicy;

/**
 * A job's place among other jobs: its chain, what it waits for, what waits for it. Lists
 * hold at most {@link #MAX_LISTED} jobs each; the counts are exact.
 *
 * @param chainId the chain it is a step of (the first step's id), or {@code null}
 * @param chainIndex its step in the chain, or {@code null}
 * @param chainSteps the chain's steps by chain index then id (this job included); empty
 * when not in a chain
 * @param chainLength how many jobs the chain has
 * @param unfinishedDependencies how many of the jobs it waits for are unfinished
 * @param dependencyPolicy what it does when one of them fails, or {@code null} when it
 * waits for nothing
 * @param waitsFor the jobs it waits (or waited) for, by id
 * @param waitsForCount how many jobs it waits (or waited) for
 * @param waitedBy the jobs that wait (or waited) for it, by id
 * @param waitedByCount how many jobs wait (or waited) for it
 */
public record JobLinks(@Nullable Long chainId, @Nullable Integer chainIndex, List<JobSummary> chainSteps,
		long chainLength, int unfinishedDependencies, @Nullable DependencyPolicy dependencyPolicy,
		List<JobSummary> waitsFor, long waitsForCount, List<JobSummary> waitedBy, long waitedByCount) {

	/** Most jobs in each list. */
	public static final int MAX_LISTED = 100;

	/** No chain, no dependencies, no dependents. */
	public static final JobLinks NONE = new JobLinks(null, null, List.of(), 0, 0, null, List.of(), 0, List.of(), 0);

	public JobLinks {
		chainSteps = List.copyOf(chainSteps);
		waitsFor = List.copyOf(waitsFor);
		waitedBy = List.copyOf(waitedBy);
	}

}
