package dev.jobqueue.core.worker;

/**
 * Chooses the error code of a failed run. Declare a bean of this type to replace the
 * default, which honours {@link dev.jobqueue.JobErrorCode} and
 * {@link dev.jobqueue.JobFailedException}.
 */
@FunctionalInterface
public interface ErrorClassifier {

	ErrorClassification classify(String jobType, Throwable failure);

}
