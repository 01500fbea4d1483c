package dev.jobqueue.core;

import dev.jobqueue.JobContext;

/** Calls the code that handles one job type. */
@FunctionalInterface
public interface JobInvoker {

	/**
	 * @param payload the payload as JSON
	 * @return the result to keep, or {@code null}
	 */
	Object invoke(String payload, JobContext context) throws Exception;

}
