package dev.jobqueue.core;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Decides what one claim asks the store for. No state and no I/O: given the worker's free
 * slots, the handlers and how many runs of each type hold a slot, it answers with a
 * {@link ClaimRequest}.
 *
 * <ul>
 * <li>The claim takes at most the free slots in all.</li>
 * <li>A type without caps is limited only by that.</li>
 * <li>A type with a per-process cap ({@link HandlerDefinition#concurrency()}) may take
 * its cap minus its runs, and no more than the free slots; a type at its cap is left
 * out.</li>
 * <li>A type with only a global cap ({@link HandlerDefinition#globalConcurrency()}) may
 * take up to the free slots here; the store counts its runs across processes in the
 * claim's own transaction.</li>
 * <li>Types whose handler is not repeatable are named, so that the store fails rather
 * than re-runs them after a lost lease.</li>
 * </ul>
 */
final class ClaimPlanner {

	private ClaimPlanner() {
	}

	/**
	 * @param workerId the claiming worker
	 * @param freeSlots slots free for this claim, counting those of runs whose outcome is
	 * written with it
	 * @param handlers the handlers of this process
	 * @param busy by type, the runs that keep their slot after this claim's writes;
	 * absent types have none
	 * @param leaseUntil until when claimed jobs are held
	 * @return what to claim; {@link ClaimRequest#isEmpty() empty} when nothing may be
	 * claimed
	 */
	static ClaimRequest plan(String workerId, int freeSlots, Collection<HandlerDefinition> handlers,
			Map<String, Integer> busy, Instant leaseUntil) {
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
			if (handler.concurrency() == 0 && handler.globalConcurrency() == 0) {
				unlimited.add(type);
				continue;
			}
			int free = (handler.concurrency() > 0) ? handler.concurrency() - busy.getOrDefault(type, 0) : freeSlots;
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
