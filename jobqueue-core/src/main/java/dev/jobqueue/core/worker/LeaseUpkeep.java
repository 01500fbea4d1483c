package dev.jobqueue.core.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ExpiredLease;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.WorkerInfo;

/**
 * The lease steps of a worker's round and when they are due, on the worker's monotonic
 * clock: every third of the lease the worker's heartbeat and the leases of its running
 * jobs are renewed; every quarter of the lease (at least the poll interval) expired
 * leases of dead workers are taken back, once {@link ExpiredLeaseWatch} has seen them
 * expired for a whole lease. Used by the polling thread only.
 */
final class LeaseUpkeep {

	private static final int RECOVERY_BATCH = 500;

	/**
	 * Most leases taken back in one transaction: each is short (a few statements under
	 * SQLite's write lock), and a failure retries only its own chunk, so a worker that
	 * died holding hundreds of claimed-ahead jobs is recovered step by step even while
	 * the database fails now and then.
	 */
	static final int RECOVERY_CHUNK = 8;

	private final JobStore store;

	private final WorkerInfo info;

	private final WorkerSettings settings;

	private final RunningJobs runs;

	private final ExpiredLeaseWatch expiredLeases;

	/**
	 * When leases are renewed next, a {@link Ticker} reading: local deadlines never
	 * follow the wall clock.
	 */
	private long nextRenewal;

	private long nextRecovery;

	LeaseUpkeep(JobStore store, WorkerInfo info, WorkerSettings settings, RunningJobs runs, long nowNanos) {
		this.store = store;
		this.info = info;
		this.settings = settings;
		this.runs = runs;
		this.expiredLeases = new ExpiredLeaseWatch(settings.lease());
		this.nextRenewal = nowNanos;
		this.nextRecovery = nowNanos;
	}

	boolean renewalDue(long nowNanos) {
		return Ticker.reached(nowNanos, this.nextRenewal);
	}

	boolean recoveryDue(long nowNanos) {
		return Ticker.reached(nowNanos, this.nextRecovery);
	}

	/** Milliseconds until the next renewal, at least 1. */
	long millisUntilRenewal(long nowNanos) {
		return Math.max(1, Duration.ofNanos(this.nextRenewal - nowNanos).toMillis());
	}

	/**
	 * Renews the worker's registration and the leases of its jobs; the renewal also tells
	 * of cancellations requested elsewhere and of leases lost.
	 */
	void renew(long nowNanos, Instant now) {
		this.nextRenewal = nowNanos + this.settings.renewalInterval().toNanos();
		this.store.registerWorker(this.info, now);
		this.runs.renewLeases(now);
	}

	/**
	 * Takes back the expired leases that have stayed expired and unchanged long enough.
	 */
	void recover(long nowNanos, Instant now) {
		this.nextRecovery = nowNanos + recoveryInterval().toNanos();
		List<ExpiredLease> due = this.expiredLeases.due(this.store.findExpiredLeases(now, RECOVERY_BATCH), nowNanos);
		for (int from = 0; from < due.size(); from += RECOVERY_CHUNK) {
			this.store.recoverExpiredLeases(due.subList(from, Math.min(due.size(), from + RECOVERY_CHUNK)), now);
		}
	}

	private Duration recoveryInterval() {
		Duration quarterLease = this.settings.lease().dividedBy(4);
		return (quarterLease.compareTo(this.settings.pollInterval()) > 0) ? quarterLease : this.settings.pollInterval();
	}

}
