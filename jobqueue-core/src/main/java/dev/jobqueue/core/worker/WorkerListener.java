package dev.jobqueue.core.worker;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;

/**
 * Told what a worker does, for metrics. Called on worker threads: keep it quick. One that
 * throws is logged and changes nothing the worker does.
 */
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
	 * A run went on after it was interrupted: past its timeout ({@code reason}
	 * {@code TIMEOUT}) or past the cancel timeout after a cancel ({@code CANCEL}). Its
	 * worker slot stays taken until the handler returns.
	 */
	default void interruptIgnored(ClaimedJob job, String reason) {
	}

	/**
	 * An outcome was rejected because the run no longer held the job (its lease had been
	 * taken over).
	 */
	default void staleCompletion(ClaimedJob job, Completion completion) {
	}

	/**
	 * A durable step of a running job ended ({@link dev.jobqueue.JobContext#step}): its
	 * work ran and its result was recorded, or ({@code replayed}) an earlier run's result
	 * was returned without running it. Called on the handler's thread.
	 */
	default void stepDone(ClaimedJob job, String step, boolean replayed) {
	}

	/**
	 * All of {@code listeners}, each told in turn; one that throws is logged and does not
	 * keep the others (or the worker) from going on.
	 */
	static WorkerListener composite(List<WorkerListener> listeners) {
		if (listeners == null || listeners.isEmpty()) {
			return NONE;
		}
		if (listeners.size() == 1) {
			return listeners.get(0);
		}
		List<WorkerListener> all = List.copyOf(listeners);
		return new WorkerListener() {

			private static final Logger logger = LoggerFactory.getLogger(WorkerListener.class);

			@Override
			public void claimed(int count) {
				each((listener) -> listener.claimed(count));
			}

			@Override
			public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
				each((listener) -> listener.finished(job, completion, queueWait, execution));
			}

			@Override
			public void interruptIgnored(ClaimedJob job, String reason) {
				each((listener) -> listener.interruptIgnored(job, reason));
			}

			@Override
			public void staleCompletion(ClaimedJob job, Completion completion) {
				each((listener) -> listener.staleCompletion(job, completion));
			}

			@Override
			public void stepDone(ClaimedJob job, String step, boolean replayed) {
				each((listener) -> listener.stepDone(job, step, replayed));
			}

			private void each(Consumer<WorkerListener> call) {
				for (WorkerListener listener : all) {
					try {
						call.accept(listener);
					}
					catch (RuntimeException ex) {
						logger.warn("Worker listener {} failed: {}", listener, ex.toString());
					}
				}
			}

		};
	}

}
