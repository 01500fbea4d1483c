package dev.jobqueue.core.worker;

import java.time.Clock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.store.Completion;

/**
 * Runs a run's handler on the calling thread, inside the worker's {@link RunInterceptor},
 * and maps how it ended with the {@link OutcomeMapper}. One per worker, shared by its
 * runs. Never throws: whatever fails around the handler (the interceptor, the mapping, an
 * {@link Error}) still yields an outcome, and an interceptor cannot change the handler's
 * outcome.
 */
final class HandlerExecution {

	// The worker's log category: users tune the logging of the worker, whatever class of
	// it writes.
	private static final Logger logger = LoggerFactory.getLogger(JobWorker.class);

	private final RunInterceptor interceptor;

	private final OutcomeMapper outcomes;

	private final Clock clock;

	HandlerExecution(RunInterceptor interceptor, OutcomeMapper outcomes, Clock clock) {
		this.interceptor = interceptor;
		this.outcomes = outcomes;
		this.clock = clock;
	}

	/**
	 * Runs the handler of a run taken from a slot.
	 * @return the outcome to hand to {@link JobRun#finish}
	 */
	Completion execute(JobRun run) {
		run.startNanos = System.nanoTime();
		if (!run.bindThread()) {
			// Cut off at shutdown before it began: handed back, this outcome is never
			// written.
			return Completion.handedBack(run.job, run.claimedAt);
		}
		try {
			Completion[] ran = new Completion[1];
			Throwable interceptorFailure = null;
			try {
				this.interceptor.around(run.job, () -> {
					ran[0] = invokeHandler(run);
					return ran[0];
				});
			}
			catch (Throwable ex) {
				interceptorFailure = ex;
			}
			if (ran[0] == null && !run.handlerInvoked) {
				logger.warn("The run interceptor of job {} ({}) did not run it{}; running it without the interceptor",
						run.job.id(), run.job.type(),
						(interceptorFailure != null) ? " (" + interceptorFailure + ")" : "", interceptorFailure);
				ran[0] = invokeHandler(run);
			}
			else if (interceptorFailure != null) {
				logger.warn("The run interceptor of job {} ({}) failed around the run; the job's outcome stands: {}",
						run.job.id(), run.job.type(), interceptorFailure.toString(), interceptorFailure);
			}
			return (ran[0] != null) ? ran[0] : run.undetermined(interceptorFailure);
		}
		catch (Throwable ex) {
			return run.undetermined(ex);
		}
		finally {
			run.unbindThread();
		}
	}

	private Completion invokeHandler(JobRun run) {
		if (run.cancelRequested) {
			return Completion.cancelled(run.job);
		}
		if (run.leaseLost) {
			// Taken back while it waited for its thread: it runs elsewhere; the outcome
			// is rejected.
			return Completion.handedBack(run.job, run.claimedAt);
		}
		// The start a rate limit counts is the handler's: recorded before it begins.
		run.recordHandlerStart();
		run.handlerInvoked = true;
		Object result = null;
		Throwable failure = null;
		try {
			result = run.handler.invoker().invoke(run.job.payload(), run);
		}
		catch (Throwable ex) {
			failure = ex;
		}
		try {
			return (failure != null) ? this.outcomes.threw(run.state(), failure, this.clock.instant())
					: run.withContinuation(this.outcomes.returned(run.state(), result, this.clock.instant()));
		}
		catch (Throwable ex) {
			return run.undetermined((failure != null) ? failure : ex);
		}
	}

}
