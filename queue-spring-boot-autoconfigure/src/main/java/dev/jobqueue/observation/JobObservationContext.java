package dev.jobqueue.observation;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.TraceHeaders;

/**
 * The observation context of one job run. It is a {@link ReceiverContext} whose carrier
 * is the propagation headers stored with the job at enqueue: a tracer's propagating
 * handler extracts them with the application's propagator, so the run's span continues
 * the enqueuing trace, with its {@code tracestate} and baggage.
 * <p>
 * Jobs stored before headers were kept hold a bare W3C {@code traceparent}; B3 headers
 * are derived from it for tracers set up with B3 propagation.
 */
public class JobObservationContext extends ReceiverContext<Map<String, String>> {

	private static final Pattern W3C_TRACE_PARENT = Pattern
		.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

	private final ClaimedJob job;

	private volatile Completion completion;

	public JobObservationContext(ClaimedJob job) {
		super(JobObservationContext::header, Kind.CONSUMER);
		this.job = job;
		setCarrier(TraceHeaders.decode(job.traceContext()));
		setRemoteServiceName("jobqueue");
	}

	public ClaimedJob getJob() {
		return this.job;
	}

	/** The run's outcome, once the run has ended. */
	public Completion getCompletion() {
		return this.completion;
	}

	public void setCompletion(Completion completion) {
		this.completion = completion;
	}

	/** A propagation header stored with the job, or {@code null}. */
	static String header(Map<String, String> headers, String key) {
		if (key == null) {
			return null;
		}
		String stored = headers.get(key);
		if (stored == null) {
			stored = headers.get(key.toLowerCase(Locale.ROOT));
		}
		if (stored != null || headers.size() != 1) {
			return stored;
		}
		return fromLegacyTraceParent(headers.get("traceparent"), key);
	}

	private static String fromLegacyTraceParent(String traceParent, String key) {
		// Stored data is not trusted: a malformed value starts a new trace rather than
		// failing the run.
		if (traceParent == null || !W3C_TRACE_PARENT.matcher(traceParent).matches()) {
			return null;
		}
		String[] parts = traceParent.split("-");
		boolean sampled = (Integer.parseInt(parts[3], 16) & 1) == 1;
		return switch (key.toLowerCase(Locale.ROOT)) {
			case "b3" -> parts[1] + "-" + parts[2] + "-" + (sampled ? "1" : "0");
			case "x-b3-traceid" -> parts[1];
			case "x-b3-spanid" -> parts[2];
			case "x-b3-sampled" -> sampled ? "1" : "0";
			default -> null;
		};
	}

}
