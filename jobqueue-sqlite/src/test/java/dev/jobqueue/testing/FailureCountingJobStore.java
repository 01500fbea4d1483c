package dev.jobqueue.testing;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.core.store.WorkerInfo;

/** A {@link JobStore} that forwards to another and keeps every exception a caller saw. */
public final class FailureCountingJobStore implements JobStore {

	private final JobStore delegate;

	public final ConcurrentLinkedQueue<RuntimeException> failures = new ConcurrentLinkedQueue<>();

	public FailureCountingJobStore(JobStore delegate) {
		this.delegate = delegate;
	}

	private <T> T watch(Supplier<T> call) {
		try {
			return call.get();
		}
		catch (RuntimeException ex) {
			this.failures.add(ex);
			throw ex;
		}
	}

	@Override
	public List<Long> enqueue(List<NewJob> jobs, Instant now, Runnable afterCommit) {
		return watch(() -> this.delegate.enqueue(jobs, now, afterCommit));
	}

	@Override
	public List<ClaimedJob> claim(ClaimRequest request, Instant now) {
		return watch(() -> this.delegate.claim(request, now));
	}

	@Override
	public boolean[] complete(List<Completion> completions, String workerId, Instant now) {
		return watch(() -> this.delegate.complete(completions, workerId, now));
	}

	@Override
	public LeaseRenewal renewLeases(String workerId, Collection<RunningJobRef> runs, Instant now, Instant leaseUntil) {
		return watch(() -> this.delegate.renewLeases(workerId, runs, now, leaseUntil));
	}

	@Override
	public int recoverExpiredLeases(Instant now, int limit) {
		return watch(() -> this.delegate.recoverExpiredLeases(now, limit));
	}

	@Override
	public java.util.List<dev.jobqueue.core.store.ExpiredLease> findExpiredLeases(Instant now, int limit) {
		return watch(() -> this.delegate.findExpiredLeases(now, limit));
	}

	@Override
	public int recoverExpiredLeases(Collection<dev.jobqueue.core.store.ExpiredLease> leases, Instant now) {
		return watch(() -> this.delegate.recoverExpiredLeases(leases, now));
	}

	@Override
	public LeaseRenewal heartbeat(String workerId, RunningJobRef run, Instant now, Instant leaseUntil) {
		return watch(() -> this.delegate.heartbeat(workerId, run, now, leaseUntil));
	}

	@Override
	public List<dev.jobqueue.JobStep> steps(long jobId) {
		return watch(() -> this.delegate.steps(jobId));
	}

	@Override
	public boolean recordStep(RunningJobRef run, dev.jobqueue.JobStep step, boolean inCallerTransaction) {
		return watch(() -> this.delegate.recordStep(run, step, inCallerTransaction));
	}

	@Override
	public void registerWorker(WorkerInfo worker, Instant now) {
		watch(() -> {
			this.delegate.registerWorker(worker, now);
			return null;
		});
	}

	@Override
	public void unregisterWorker(String workerId) {
		watch(() -> {
			this.delegate.unregisterWorker(workerId);
			return null;
		});
	}

	@Override
	public void recordEvent(long jobId, String event, String actor, String detail, Instant now) {
		watch(() -> {
			this.delegate.recordEvent(jobId, event, actor, detail, now);
			return null;
		});
	}

}
