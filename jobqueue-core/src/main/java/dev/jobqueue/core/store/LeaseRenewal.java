package dev.jobqueue.core.store;

import java.util.Set;

/**
 * What a lease renewal learnt about the worker's running jobs.
 *
 * @param cancelRequested jobs someone asked to cancel
 * @param lost jobs this worker no longer holds (lease expired and recovered elsewhere, or
 * finished)
 */
public record LeaseRenewal(Set<Long> cancelRequested, Set<Long> lost) {

	public static final LeaseRenewal NONE = new LeaseRenewal(Set.of(), Set.of());

}
