package dev.jobqueue.testing;

import java.time.Instant;
import java.util.List;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.store.StorageStats;

/**
 * A {@link RetentionStore} that forwards to another; tests override a method to pause or
 * observe it.
 */
public class DelegatingRetentionStore implements RetentionStore {

	private final RetentionStore delegate;

	public DelegatingRetentionStore(RetentionStore delegate) {
		this.delegate = delegate;
	}

	@Override
	public int deleteSilentWorkers(Instant heartbeatBefore) {
		return this.delegate.deleteSilentWorkers(heartbeatBefore);
	}

	@Override
	public boolean acquireLease(String task, String owner, Instant now, Instant until) {
		return this.delegate.acquireLease(task, owner, now, until);
	}

	@Override
	public void releaseLease(String task, String owner) {
		this.delegate.releaseLease(task, owner);
	}

	@Override
	public List<String> finishedTypes(JobStatus status) {
		return this.delegate.finishedTypes(status);
	}

	@Override
	public int deleteFinished(JobStatus status, String type, Instant finishedBefore, int limit) {
		return this.delegate.deleteFinished(status, type, finishedBefore, limit);
	}

	@Override
	public StorageStats storage() {
		return this.delegate.storage();
	}

	@Override
	public StorageStats vacuum() {
		return this.delegate.vacuum();
	}

}
