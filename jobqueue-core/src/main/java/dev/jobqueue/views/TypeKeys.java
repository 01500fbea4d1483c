package dev.jobqueue.views;

import java.time.Instant;
import java.util.List;

import dev.jobqueue.core.FlowControl;

/**
 * The keys of one type.
 *
 * @param type the job type
 * @param flowControl its flow control, as asked with
 * @param at the instant due jobs were counted at
 * @param keys how many keys have a pending, running or failed job
 * @param blockedKeys how many keys are blocked
 * @param busiest the keys with the largest backlog (pending jobs), then the most running
 * jobs, then by key, at most the limit asked for
 * @param blocked the blocked keys by backlog, then by key, at most the limit asked for
 */
public record TypeKeys(String type, FlowControl flowControl, Instant at, long keys, long blockedKeys,
		List<KeyState> busiest, List<KeyState> blocked) {

	public TypeKeys {
		busiest = List.copyOf(busiest);
		blocked = List.copyOf(blocked);
	}

}
