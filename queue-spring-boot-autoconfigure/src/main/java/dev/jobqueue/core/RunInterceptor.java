package dev.jobqueue.core;

import java.util.concurrent.Callable;

/** Wraps each run, for tracing and observation. */
@FunctionalInterface
public interface RunInterceptor {

	RunInterceptor NONE = (job, run) -> run.call();

	Object around(ClaimedJob job, Callable<Object> run) throws Exception;

}
