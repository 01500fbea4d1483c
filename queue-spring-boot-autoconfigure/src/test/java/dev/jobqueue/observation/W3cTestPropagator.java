package dev.jobqueue.observation;

import java.util.List;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

/**
 * W3C trace context propagation for the test tracer, standing in for the propagator a
 * Brave or OpenTelemetry bridge brings (neither is available to this build). 128-bit
 * trace ids whose upper half is zero are read back as the 64-bit ids the test tracer
 * makes, as Brave does.
 */
final class W3cTestPropagator implements Propagator {

	private final Tracer tracer;

	W3cTestPropagator(Tracer tracer) {
		this.tracer = tracer;
	}

	@Override
	public List<String> fields() {
		return List.of("traceparent");
	}

	@Override
	public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
		setter.set(carrier, "traceparent", "00-" + "0".repeat(32 - context.traceId().length()) + context.traceId() + "-"
				+ context.spanId() + "-01");
	}

	@Override
	public <C> Span.Builder extract(C carrier, Getter<C> getter) {
		String traceParent = getter.get(carrier, "traceparent");
		if (traceParent == null) {
			return this.tracer.spanBuilder();
		}
		String[] parts = traceParent.split("-");
		String traceId = parts[1].startsWith("0".repeat(16)) ? parts[1].substring(16) : parts[1];
		TraceContext parent = this.tracer.traceContextBuilder()
			.traceId(traceId)
			.spanId(parts[2])
			.sampled("01".equals(parts[3]))
			.build();
		return this.tracer.spanBuilder().setParent(parent);
	}

}
