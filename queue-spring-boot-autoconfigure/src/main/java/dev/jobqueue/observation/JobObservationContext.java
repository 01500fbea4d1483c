package dev.jobqueue.observation;

import java.util.Locale;
import java.util.regex.Pattern;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

import dev.jobqueue.core.ClaimedJob;
import dev.jobqueue.core.Completion;

/**
 * The observation context of one job run. It is a {@link ReceiverContext} whose carrier is the job: a tracer's
 * propagating handler reads the trace context stored at enqueue from it, so the run's span continues the
 * enqueuing trace. The job stores a W3C {@code traceparent}; B3 headers are derived from it for tracers set up
 * with B3 propagation.
 */
public class JobObservationContext extends ReceiverContext<ClaimedJob> {

	private static final Pattern W3C_TRACE_PARENT = Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

	private volatile Completion completion;

	public JobObservationContext(ClaimedJob job) {
		super(JobObservationContext::header, Kind.CONSUMER);
		setCarrier(job);
		setRemoteServiceName("jobqueue");
	}

	public ClaimedJob getJob() {
		return getCarrier();
	}

	/** The run's outcome, once the run has ended. */
	public Completion getCompletion() {
		return this.completion;
	}

	public void setCompletion(Completion completion) {
		this.completion = completion;
	}

	/** A propagation header of the job's stored trace context, or {@code null}. */
	static String header(ClaimedJob job, String key) {
		String traceParent = job.traceParent();
		if (traceParent == null || key == null) {
			return null;
		}
		// Stored data is not trusted: a malformed value starts a new trace rather than failing the run.
		if (!W3C_TRACE_PARENT.matcher(traceParent).matches()) {
			return null;
		}
		String[] parts = traceParent.split("-");
		boolean sampled = (Integer.parseInt(parts[3], 16) & 1) == 1;
		return switch (key.toLowerCase(Locale.ROOT)) {
			case "traceparent" -> traceParent;
			case "b3" -> parts[1] + "-" + parts[2] + "-" + (sampled ? "1" : "0");
			case "x-b3-traceid" -> parts[1];
			case "x-b3-spanid" -> parts[2];
			case "x-b3-sampled" -> sampled ? "1" : "0";
			default -> null;
		};
	}

}
