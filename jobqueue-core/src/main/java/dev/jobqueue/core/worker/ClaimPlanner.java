package dev.jobqueue.core.worker;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.store.ClaimRequest;

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
 * <li>A type with a rate limit (of the type or of its keys) is not claimed ahead either:
 * its starts are counted when it is claimed, so a job waiting for a slot would use up its
 * window before it runs. A type with limits per key or order per key is claimed ahead: a
 * job waiting for a slot is running in the database and holds its key as a running job
 * does. A type's flow control goes with the request, and the store checks it across
 * processes in the claim's own transaction.</li>
 * <li>The types that are not claimed ahead may each take every slot free now; the store
 * claims those slots as a part of their own ({@link ClaimRequest#startingNow()}), so
 * together they take no more.</li>
 * <li>Of the room, the slots free now are named: the store claims jobs on their last
 * attempt only into those, since a process killed while such a job waits in its buffer
 * would fail the job without it ever having run.</li>
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
		Set<String> unlimited = new HashSet<>();
		Map<String, Integer> limited = new HashMap<>();
		Map<String, Integer> globalLimits = new HashMap<>();
		Set<String> notRepeatable = new HashSet<>();
		Map<String, FlowControl> flowControls = new HashMap<>();
		if (room <= 0) {
			return new ClaimRequest(workerId, Math.max(room, 0), unlimited, limited, notRepeatable, leaseUntil,
					globalLimits);
		}
		for (HandlerDefinition handler : handlers) {
			String type = handler.type();
			if (!handler.repeatable()) {
				notRepeatable.add(type);
			}
			boolean ahead = claimedAhead(handler);
			if (handler.concurrency() == 0 && ahead && !handler.flowControl().limits()) {
				unlimited.add(type);
				continue;
			}
			int free = (handler.concurrency() > 0) ? handler.concurrency() - busy.getOrDefault(type, 0) : room;
			if (!ahead) {
				// Each such type may take every slot free now: together they take no
				// more, since the store claims the slots free now as a part of their own
				// (ClaimRequest#startingNow) and leaves these types out of the rest.
				free = Math.min(free, freeNow);
			}
			if (free > 0) {
				limited.put(type, Math.min(free, room));
				if (handler.globalConcurrency() > 0) {
					globalLimits.put(type, handler.globalConcurrency());
				}
				if (handler.flowControl().limits()) {
					flowControls.put(type, handler.flowControl());
				}
			}
		}
		return new ClaimRequest(workerId, room, unlimited, limited, notRepeatable, leaseUntil, globalLimits,
				Math.max(freeNow, 0), flowControls);
	}

	/**
	 * Whether jobs of the type may wait for a slot in the claim-ahead buffer: not when
	 * its handler is not repeatable (killed while waiting, the job would fail as not
	 * repeatable although it never ran), nor with a global cap (a job waiting here would
	 * hold a place of the cap that a process with a free slot could use), nor with a rate
	 * limit of the type or of its keys (a start is counted when the job is claimed, so a
	 * job waiting here would use up its window before it runs, and its logged start would
	 * not be when it ran). Limits per key and order per key allow it: a job claimed ahead
	 * is {@code running} in the database, so it holds its key exactly as a running job
	 * does, and the next job of the key waits until it ends.
	 */
	static boolean claimedAhead(HandlerDefinition handler) {
		return handler.repeatable() && handler.globalConcurrency() == 0 && !handler.flowControl().rateLimited();
	}

}
