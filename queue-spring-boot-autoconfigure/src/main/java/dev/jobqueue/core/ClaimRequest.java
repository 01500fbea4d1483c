package dev.jobqueue.core;

import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * What one claim may take.
 *
 * @param workerId the claiming worker
 * @param limit most jobs to claim in all
 * @param unlimitedTypes types limited only by {@code limit}
 * @param limitedTypes types with a per-process cap, each with the slots it has free now
 * @param notRepeatableTypes types whose jobs must fail rather than run again after a lost lease
 * @param leaseUntil until when the claimed jobs are held
 */
public record ClaimRequest(String workerId, int limit, Set<String> unlimitedTypes, Map<String, Integer> limitedTypes,
		Set<String> notRepeatableTypes, Instant leaseUntil) {

	public boolean isEmpty() {
		return this.limit <= 0 || (this.unlimitedTypes.isEmpty() && this.limitedTypes.isEmpty());
	}

}
