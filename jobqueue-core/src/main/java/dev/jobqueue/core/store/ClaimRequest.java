package dev.jobqueue.core.store;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.jobqueue.core.FlowControl;

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
 * @param freeNow how many of the {@code limit} jobs start at once; the rest wait for a
 * slot in the claim-ahead buffer, so the store takes for them only jobs that have an
 * attempt left after this one (killed while waiting, a job on its last attempt would fail
 * without ever having run)
 * @param flowControls types (among {@code limitedTypes}) whose handler sets flow control
 * ({@link FlowControl#limits()}): rate limits, limits per key, order per key; the store
 * checks them against the starts and running jobs of every process, in the claim's own
 * transaction. Jobs with a key are claimed in rounds across keys whatever the type's flow
 * control (see {@code dev.jobqueue.jdbc.FlowClaims})
 */
public record ClaimRequest(String workerId, int limit, Set<String> unlimitedTypes, Map<String, Integer> limitedTypes,
		Set<String> notRepeatableTypes, Instant leaseUntil, Map<String, Integer> globalLimits, int freeNow,
		Map<String, FlowControl> flowControls) {

	public ClaimRequest {
		globalLimits = (globalLimits != null) ? globalLimits : Map.of();
		freeNow = Math.max(0, Math.min(freeNow, limit));
		flowControls = (flowControls != null) ? flowControls : Map.of();
	}

	/** A claim without flow control. */
	public ClaimRequest(String workerId, int limit, Set<String> unlimitedTypes, Map<String, Integer> limitedTypes,
			Set<String> notRepeatableTypes, Instant leaseUntil, Map<String, Integer> globalLimits, int freeNow) {
		this(workerId, limit, unlimitedTypes, limitedTypes, notRepeatableTypes, leaseUntil, globalLimits, freeNow,
				Map.of());
	}

	/** A claim in which every job starts at once. */
	public ClaimRequest(String workerId, int limit, Set<String> unlimitedTypes, Map<String, Integer> limitedTypes,
			Set<String> notRepeatableTypes, Instant leaseUntil, Map<String, Integer> globalLimits) {
		this(workerId, limit, unlimitedTypes, limitedTypes, notRepeatableTypes, leaseUntil, globalLimits, limit);
	}

	/** A claim without global caps in which every job starts at once. */
	public ClaimRequest(String workerId, int limit, Set<String> unlimitedTypes, Map<String, Integer> limitedTypes,
			Set<String> notRepeatableTypes, Instant leaseUntil) {
		this(workerId, limit, unlimitedTypes, limitedTypes, notRepeatableTypes, leaseUntil, Map.of(), limit);
	}

	/** The flow control of {@code type}: {@link FlowControl#NONE} unless it limits. */
	public FlowControl flowControl(String type) {
		return this.flowControls.getOrDefault(type, FlowControl.NONE);
	}

	public boolean isEmpty() {
		return this.limit <= 0 || (this.unlimitedTypes.isEmpty() && this.limitedTypes.isEmpty());
	}

	/** Whether some of the jobs are claimed ahead, to wait for a slot. */
	public boolean claimsAhead() {
		return this.freeNow < this.limit;
	}

	/**
	 * The part of the claim that starts at once: any due job, at most {@link #freeNow}. A
	 * store claims it first, then {@link #ahead(List)} in the same transaction.
	 */
	public ClaimRequest startingNow() {
		return new ClaimRequest(this.workerId, this.freeNow, this.unlimitedTypes, this.limitedTypes,
				this.notRepeatableTypes, this.leaseUntil, this.globalLimits, this.freeNow, this.flowControls);
	}

	/**
	 * Whether jobs of the type start only in a slot free now: not repeatable, globally
	 * capped or rate-limited, so never claimed ahead.
	 */
	public boolean startsOnlyNow(String type) {
		return this.limitedTypes.containsKey(type) && (this.notRepeatableTypes.contains(type)
				|| this.globalLimits.containsKey(type) || flowControl(type).rateLimited());
	}

	/**
	 * The part of {@link #startingNow()} for the types that {@link #startsOnlyNow start
	 * only now}, which a store claims first: other types may still be claimed ahead, so
	 * if they took the slots free now first, a worker busy with them would offer these
	 * types a slot only when one of their jobs is older than every other candidate.
	 */
	public ClaimRequest onlyNow() {
		Map<String, Integer> rooms = new HashMap<>();
		Map<String, FlowControl> flows = new HashMap<>();
		Map<String, Integer> caps = new HashMap<>();
		this.limitedTypes.forEach((type, room) -> {
			if (startsOnlyNow(type)) {
				rooms.put(type, room);
				if (this.flowControls.containsKey(type)) {
					flows.put(type, this.flowControls.get(type));
				}
				if (this.globalLimits.containsKey(type)) {
					caps.put(type, this.globalLimits.get(type));
				}
			}
		});
		return new ClaimRequest(this.workerId, this.freeNow, Set.of(), rooms, this.notRepeatableTypes, this.leaseUntil,
				caps, this.freeNow, flows);
	}

	/**
	 * What is left of {@link #startingNow()} for every type after {@code claimedNow} were
	 * taken into slots free now.
	 */
	public ClaimRequest startingNow(List<ClaimedJob> claimedNow) {
		int left = this.freeNow - claimedNow.size();
		Map<String, Integer> rooms = new HashMap<>();
		Map<String, FlowControl> flows = new HashMap<>();
		this.limitedTypes.forEach((type, room) -> {
			int roomLeft = room - (int) claimedNow.stream().filter((job) -> job.type().equals(type)).count();
			if (roomLeft > 0) {
				rooms.put(type, roomLeft);
				if (this.flowControls.containsKey(type)) {
					flows.put(type, this.flowControls.get(type));
				}
			}
		});
		return new ClaimRequest(this.workerId, Math.max(0, left), this.unlimitedTypes, rooms, this.notRepeatableTypes,
				this.leaseUntil, this.globalLimits, Math.max(0, left), flows);
	}

	/**
	 * The part of the claim that waits for a slot, after {@code claimedNow} were taken by
	 * {@link #startingNow()}: the rest of the limit and of each type's room, without the
	 * types that are never claimed ahead (not repeatable, globally capped, rate-limited:
	 * a start is logged when the job is claimed). Types with limits per key or order per
	 * key stay, with their flow control: a job claimed ahead is running in the database
	 * and holds its key. The store takes only jobs whose claim would not be their last
	 * attempt.
	 */
	public ClaimRequest ahead(List<ClaimedJob> claimedNow) {
		Map<String, Integer> rooms = new HashMap<>();
		Map<String, FlowControl> flows = new HashMap<>();
		this.limitedTypes.forEach((type, room) -> {
			if (!this.notRepeatableTypes.contains(type) && !this.globalLimits.containsKey(type)
					&& !flowControl(type).rateLimited()) {
				int left = room - (int) claimedNow.stream().filter((job) -> job.type().equals(type)).count();
				if (left > 0) {
					rooms.put(type, left);
					if (this.flowControls.containsKey(type)) {
						flows.put(type, this.flowControls.get(type));
					}
				}
			}
		});
		return new ClaimRequest(this.workerId, this.limit - claimedNow.size(), this.unlimitedTypes, rooms,
				this.notRepeatableTypes, this.leaseUntil, Map.of(), 0, flows);
	}

}
