package dev.jobqueue.core.worker;

import java.time.Duration;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;

/**
 * A {@link WorkerListener} that needs of a run only its type and how it ended, as meters
 * count runs: it hears them without the store's records.
 */
public interface RunOutcomeListener extends WorkerListener {

	/**
	 * A run's outcome was written.
	 * @param type the job's type
	 * @param outcome how the run ended
	 * @param queueWait from the job's due time until the run started
	 * @param execution how long the handler ran
	 */
	void finished(String type, RunOutcome outcome, Duration queueWait, Duration execution);

	/**
	 * A run's outcome was rejected because the run no longer held its job.
	 * @param type the job's type
	 */
	default void staleCompletion(String type) {
	}

	@Override
	default void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
		finished(job.type(), RunOutcome.of(completion.kind()), queueWait, execution);
	}

	@Override
	default void staleCompletion(ClaimedJob job, Completion completion) {
		staleCompletion(job.type());
	}

}
