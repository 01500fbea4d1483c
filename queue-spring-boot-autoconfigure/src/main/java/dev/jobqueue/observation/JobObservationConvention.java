package dev.jobqueue.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags of the {@code jobqueue.job} observation; declare a bean to change them.
 */
public interface JobObservationConvention extends ObservationConvention<JobObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof JobObservationContext;
	}

}
