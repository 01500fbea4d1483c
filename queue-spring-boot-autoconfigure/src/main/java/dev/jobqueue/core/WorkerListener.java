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

	/**
	 * A run went on after it was interrupted: past its timeout ({@code reason} {@code TIMEOUT}) or past the
	 * cancel timeout after a cancel ({@code CANCEL}). Its worker slot stays taken until the handler returns.
	 */
	default void interruptIgnored(ClaimedJob job, String reason) {
	}

	/** An outcome was rejected because the run no longer held the job (its lease had been taken over). */
	default void staleCompletion(ClaimedJob job, Completion completion) {
	}

}
