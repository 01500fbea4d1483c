package dev.jobqueue.observation;

import java.util.function.Supplier;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;

import dev.jobqueue.core.TraceParentSource;

/**
 * The W3C {@code traceparent} of Micrometer Tracing's current span, built from its trace context (so it works
 * whichever propagation format the tracer is set up with). 64-bit trace ids are padded to 128 bits, as W3C
 * asks. The sampled flag is set unless the tracer decided not to sample.
 */
public class TracerTraceParentSource implements TraceParentSource {

	private final Supplier<Tracer> tracer;

	private volatile Tracer resolved;

	/** @param tracer looked up on first use; may supply {@code null} when no tracer is configured */
	public TracerTraceParentSource(Supplier<Tracer> tracer) {
		this.tracer = tracer;
	}

	@Override
	public String currentTraceParent() {
		Tracer current = this.resolved;
		if (current == null) {
			current = this.tracer.get();
			current = (current != null) ? current : Tracer.NOOP;
			this.resolved = current;
		}
		Span span = current.currentSpan();
		if (span == null) {
			return null;
		}
		TraceContext context = span.context();
		String traceId = pad(context.traceId(), 32);
		String spanId = pad(context.spanId(), 16);
		if (traceId == null || spanId == null) {
			return null;
		}
		// An undecided sampling decision is passed on as sampled, so the job's span is not dropped for it.
		return "00-" + traceId + "-" + spanId + "-" + (Boolean.FALSE.equals(context.sampled()) ? "00" : "01");
	}

	private static String pad(String id, int length) {
		if (id == null || id.isEmpty() || id.length() > length || !isHex(id) || id.chars().allMatch((c) -> c == '0')) {
			return null;
		}
		return "0".repeat(length - id.length()) + id;
	}

	private static boolean isHex(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
				return false;
			}
		}
		return true;
	}

}
