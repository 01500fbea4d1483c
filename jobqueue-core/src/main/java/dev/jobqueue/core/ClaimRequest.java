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
 * @param notRepeatableTypes types whose jobs must fail rather than run again after a lost
 * lease
 * @param leaseUntil until when the claimed jobs are held
 * @param globalLimits types (among {@code limitedTypes}) with a cap on running jobs
 * across all processes; the store counts their running jobs in the claim's own
 * transaction
 */
public record ClaimRequest(String workerId, int limit, Set<String> unlimitedTypes, Map<String, Integer> limitedTypes,
		Set<String> notRepeatableTypes, Instant leaseUntil, Map<String, Integer> globalLimits) {

	public ClaimRequest {
		globalLimits = (globalLimits != null) ? globalLimits : Map.of();
	}

	/** A claim without global caps. */
	public ClaimRequest(String workerId, int limit, Set<String> unlimitedTypes, Map<String, Integer> limitedTypes,
			Set<String> notRepeatableTypes, Instant leaseUntil) {
		this(workerId, limit, unlimitedTypes, limitedTypes, notRepeatableTypes, leaseUntil, Map.of());
	}

	public boolean isEmpty() {
		return this.limit <= 0 || (this.unlimitedTypes.isEmpty() && this.limitedTypes.isEmpty());
	}

}
