package dev.jobqueue.core.worker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ExpiredLease;

/**
 * Decides which expired leases a worker takes back. A lease that looks expired by this
 * process's wall clock is taken back only once this process has seen it expired,
 * unchanged (same run, same end), for a whole grace period on its monotonic
 * {@link Ticker}. A living worker renews its leases every third of the lease on its own
 * monotonic clock, so its lease's end changes well within the grace, whatever either
 * machine's wall clock did: a clock stepped forward here, or back there, makes leases
 * look expired without a live job being recovered. A dead worker's lease stops changing,
 * and is taken back one grace period after it was first seen. Used by the polling thread
 * only.
 */
final class ExpiredLeaseWatch {

	private final long graceNanos;

	private Map<Long, Seen> seen = new HashMap<>();

	ExpiredLeaseWatch(java.time.Duration grace) {
		this.graceNanos = grace.toNanos();
	}

	/**
	 * @param expired the leases expired now by the wall clock, as read
	 * @param nowNanos a {@link Ticker} reading
	 * @return those seen expired and unchanged for the whole grace period
	 */
	List<ExpiredLease> due(List<ExpiredLease> expired, long nowNanos) {
		Map<Long, Seen> next = new HashMap<>();
		List<ExpiredLease> due = new ArrayList<>();
		for (ExpiredLease lease : expired) {
			Seen before = this.seen.get(lease.jobId());
			Seen now = (before != null && before.lease().equals(lease)) ? before : new Seen(lease, nowNanos);
			next.put(lease.jobId(), now);
			if (Ticker.reached(nowNanos, now.since() + this.graceNanos)) {
				due.add(lease);
			}
		}
		// Leases no longer expired (renewed, finished, recovered elsewhere) are
		// forgotten.
		this.seen = next;
		return due;
	}

	private record Seen(ExpiredLease lease, long since) {

	}

}
