package dev.jobqueue.observation;

import java.util.Objects;
import java.util.concurrent.Callable;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.RunInterceptor;

/**
 * Observes each run as a {@code jobqueue.job} {@link Observation}, open in scope on the
 * thread that runs the handler (so the handler's own observations and log correlation
 * nest under it). With a tracer, the run's span continues the trace stored at enqueue
 * (see {@link JobObservationContext}). With a no-op registry it costs a null check.
 */
public class ObservationRunInterceptor implements RunInterceptor {

	private static final Logger logger = LoggerFactory.getLogger(ObservationRunInterceptor.class);

	private static final JobObservationConvention DEFAULT_CONVENTION = new DefaultJobObservationConvention();

	private final ObservationRegistry registry;

	private final JobObservationConvention convention;

	/**
	 * @param convention replaces the default names and tags, or {@code null}
	 */
	public ObservationRunInterceptor(ObservationRegistry registry, JobObservationConvention convention) {
		this.registry = Objects.requireNonNull(registry, "'registry' must not be null");
		this.convention = convention;
	}

	@Override
	public Completion around(ClaimedJob job, Callable<Completion> run) throws Exception {
		if (this.registry.isNoop()) {
			return run.call();
		}
		JobObservationContext context = new JobObservationContext(job);
		Observation observation;
		try {
			observation = Observation.createNotStarted(this.convention, DEFAULT_CONVENTION, () -> context,
					this.registry);
			observation.start();
		}
		catch (RuntimeException ex) {
			// Telemetry must never cost a job its run.
			logger.warn("Could not start the jobqueue.job observation of job {} ({}); running it unobserved: {}",
					job.id(), job.type(), ex.toString());
			return run.call();
		}
		try (Observation.Scope scope = observation.openScope()) {
			Completion completion = run.call();
			context.setCompletion(completion);
			if (completion.kind() == Completion.Kind.FAILED || completion.kind() == Completion.Kind.RETRY) {
				observation.error(new JobRunFailure(completion));
			}
			return completion;
		}
		catch (Exception ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	/**
	 * Marks a failed run's span and timer as an error; carries the error code, not a
	 * stack trace.
	 */
	static final class JobRunFailure extends RuntimeException {

		JobRunFailure(Completion completion) {
			super(completion.errorCode() + ((completion.errorDetail() != null) ? ": " + completion.errorDetail() : ""),
					null, false, false);
		}

	}

}
