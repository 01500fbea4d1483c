package dev.jobqueue.core.store;

/**
 * What the enqueuing side tells the worker in the same process, so it reacts at once
 * instead of at the next poll.
 */
public interface QueueSignals {

	QueueSignals NONE = new QueueSignals() {
	};

	/** New jobs were committed. */
	default void jobsEnqueued() {
	}

	/** A cancel of this job was recorded: interrupt it if it runs here. */
	default void cancelRequested(long jobId) {
	}

}
