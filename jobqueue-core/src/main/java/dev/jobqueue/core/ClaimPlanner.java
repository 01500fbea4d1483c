package dev.jobqueue.core;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Decides what one claim asks the store for. No state and no I/O: given the worker's room
 * (free slots plus claim-ahead), the slots free right now, the handlers and how many runs
 * of each type the worker holds, it answers with a {@link ClaimRequest}.
 *
 * <ul>
 * <li>The claim takes at most the room in all.</li>
 * <li>A type without caps is limited only by that.</li>
 * <li>A type with a per-process cap ({@link HandlerDefinition#concurrency()}) may take
 * its cap minus the runs it holds (running or claimed ahead), and no more than the room;
 * a type at its cap is left out.</li>
 * <li>A type with a global cap ({@link HandlerDefinition#globalConcurrency()}) is not
 * claimed ahead: it takes no more than the slots free now, so a job counted against the
 * cap across processes is a job that runs; the store counts its runs across processes in
 * the claim's own transaction.</li>
 * <li>A type whose handler is not repeatable is not claimed ahead either: a job waiting
 * for a slot in a process that is killed would fail as not repeatable although it never
 * ran.</li>
 * <li>Types whose handler is not repeatable are named, so that the store fails rather
 * than re-runs them after a lost lease.</li>
 * </ul>
 */
final class ClaimPlanner {

	private ClaimPlanner() {
	}

	/**
	 * @param workerId the claiming worker
	 * @param room most jobs to claim: free slots plus claim-ahead, minus the jobs already
	 * waiting for a slot
	 * @param freeNow slots in which a claimed job would start at once (free, and not
	 * promised to a job waiting for one)
	 * @param handlers the handlers of this process
	 * @param busy by type, the runs that keep their slot after this claim's writes;
	 * absent types have none
	 * @param leaseUntil until when claimed jobs are held
	 * @return what to claim; {@link ClaimRequest#isEmpty() empty} when nothing may be
	 * claimed
	 */
	static ClaimRequest plan(String workerId, int room, int freeNow, Collection<HandlerDefinition> handlers,
			Map<String, Integer> busy, Instant leaseUntil) {
		int freeSlots = room;
		Set<String> unlimited = new HashSet<>();
		Map<String, Integer> limited = new HashMap<>();
		Map<String, Integer> globalLimits = new HashMap<>();
		Set<String> notRepeatable = new HashSet<>();
		if (freeSlots <= 0) {
			return new ClaimRequest(workerId, Math.max(freeSlots, 0), unlimited, limited, notRepeatable, leaseUntil,
					globalLimits);
		}
		for (HandlerDefinition handler : handlers) {
			String type = handler.type();
			if (!handler.repeatable()) {
				notRepeatable.add(type);
			}
			boolean claimedAhead = handler.repeatable() && handler.globalConcurrency() == 0;
			if (handler.concurrency() == 0 && claimedAhead) {
				unlimited.add(type);
				continue;
			}
			int free = (handler.concurrency() > 0) ? handler.concurrency() - busy.getOrDefault(type, 0) : freeSlots;
			if (!claimedAhead) {
				free = Math.min(free, freeNow);
			}
			if (free > 0) {
				limited.put(type, Math.min(free, freeSlots));
				if (handler.globalConcurrency() > 0) {
					globalLimits.put(type, handler.globalConcurrency());
				}
			}
		}
		return new ClaimRequest(workerId, freeSlots, unlimited, limited, notRepeatable, leaseUntil, globalLimits);
	}

}
