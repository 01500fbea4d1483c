package dev.jobqueue;

import java.util.List;

/**
 * The jobs {@link JobQueue#enqueueFanOut(List, JobRequest)} created: the children, and
 * the job that waits for all of them. They form one chain: the children are its step 0,
 * the join its step 1, and {@link JobQueue#cancelChain(long)} cancels what is unfinished
 * of it.
 *
 * @param chainId the chain's id: the first child's id (the join's id when there are no
 * children)
 * @param childIds the children's ids, in request order
 * @param joinId the id of the job that runs once every child finished
 */
public record FanOut(long chainId, List<Long> childIds, long joinId) {

	public FanOut {
		childIds = List.copyOf(childIds);
	}

}
