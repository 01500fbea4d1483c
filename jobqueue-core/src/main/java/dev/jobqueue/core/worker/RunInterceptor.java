package dev.jobqueue.core.worker;

import java.util.List;
import java.util.concurrent.Callable;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;

/**
 * Wraps each run, for tracing and observation. The run it is given invokes the handler
 * and turns what happened into the {@link Completion} that will be written, so an
 * interceptor sees the outcome (for an {@code outcome} tag, say) as well as the time the
 * handler took.
 */
@FunctionalInterface
public interface RunInterceptor {

	RunInterceptor NONE = (job, run) -> run.call();

	/**
	 * Runs the job: calls {@code run} once, on the calling thread, and returns its
	 * completion. The run itself does not throw; an exception thrown by the interceptor
	 * is recorded as the job's failure.
	 */
	Completion around(ClaimedJob job, Callable<Completion> run) throws Exception;

	/** Interceptors nested in order: the first is outermost. */
	static RunInterceptor chain(List<RunInterceptor> interceptors) {
		if (interceptors == null || interceptors.isEmpty()) {
			return NONE;
		}
		if (interceptors.size() == 1) {
			return interceptors.get(0);
		}
		RunInterceptor outer = interceptors.get(0);
		RunInterceptor inner = chain(interceptors.subList(1, interceptors.size()));
		return (job, run) -> outer.around(job, () -> inner.around(job, run));
	}

}
