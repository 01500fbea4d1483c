package dev.jobqueue.core;

import java.time.Duration;

/** Told what a worker does, for metrics. Called on worker threads: keep it quick and never throw. */
public interface WorkerListener {

	WorkerListener NONE = new WorkerListener() {
	};

	/** A claim returned {@code count} jobs. */
	default void claimed(int count) {
	}

	/**
	 * A run ended and its outcome was written.
	 * @param queueWait from due time to start
	 * @param execution how long the handler ran
	 */
	default void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
	}

	/** An outcome was rejected because the run no longer held the job (its lease had been taken over). */
	default void staleCompletion(ClaimedJob job, Completion completion) {
	}

}
