package dev.jobqueue.core;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.jobqueue.core.store.QueueSignals;

/**
 * The signals of one process: the queue and the scheduler tell it of new jobs and
 * cancellations, and it passes them on to whoever listens (the worker, while it runs).
 * Neither side needs to know the other, so either can be replaced or absent (an
 * enqueue-only node has no worker).
 */
public final class LocalSignals implements QueueSignals {

	private final List<QueueSignals> listeners = new CopyOnWriteArrayList<>();

	public void addListener(QueueSignals listener) {
		this.listeners.add(listener);
	}

	public void removeListener(QueueSignals listener) {
		this.listeners.remove(listener);
	}

	@Override
	public void jobsEnqueued() {
		for (QueueSignals listener : this.listeners) {
			listener.jobsEnqueued();
		}
	}

	@Override
	public void cancelRequested(long jobId) {
		for (QueueSignals listener : this.listeners) {
			listener.cancelRequested(jobId);
		}
	}

}
