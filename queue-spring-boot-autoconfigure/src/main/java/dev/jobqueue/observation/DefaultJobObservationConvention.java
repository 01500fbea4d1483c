package dev.jobqueue.observation;

import io.micrometer.common.KeyValues;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.RunOutcome;
import dev.jobqueue.metrics.QueueMeterListener;

/**
 * The default {@link JobObservationConvention}: observation {@code jobqueue.job}, span
 * {@code job <type>}, low-cardinality tags {@code type} and {@code outcome} (as in the
 * {@code jobqueue.completed} counter; {@code unknown} until the run ends),
 * high-cardinality tags {@code job.id}, {@code job.attempt} and, for failures,
 * {@code error.code}.
 */
public class DefaultJobObservationConvention implements JobObservationConvention {

	/** The observation's name. */
	public static final String NAME = "jobqueue.job";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(JobObservationContext context) {
		return "job " + context.getJob().type();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(JobObservationContext context) {
		Completion completion = context.getCompletion();
		return KeyValues.of("type", context.getJob().type(), "outcome",
				(completion != null) ? QueueMeterListener.outcome(RunOutcome.of(completion.kind())) : "unknown");
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(JobObservationContext context) {
		ClaimedJob job = context.getJob();
		KeyValues values = KeyValues.of("job.id", String.valueOf(job.id()), "job.attempt",
				String.valueOf(job.attempt()));
		Completion completion = context.getCompletion();
		if (completion != null && completion.errorCode() != null) {
			values = values.and("error.code", completion.errorCode());
		}
		return values;
	}

}
