package dev.jobqueue.observation;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

import dev.jobqueue.core.TraceContextSource;

/**
 * The propagation headers of Micrometer Tracing's current span, written by the
 * application's configured {@link Propagator}: whichever format the tracer propagates
 * (W3C, B3, several), with {@code tracestate} and baggage, is what the job stores. At
 * run, {@link JobObservationContext} hands the same headers to the tracer's receiving
 * handler, which extracts them with the same propagator.
 */
public class PropagatorTraceContextSource implements TraceContextSource {

	private final Supplier<Tracer> tracer;

	private final Supplier<Propagator> propagator;

	private volatile Tracer resolvedTracer;

	private volatile Propagator resolvedPropagator;

	/**
	 * @param tracer looked up on first use; may supply {@code null} when no tracer is
	 * configured
	 * @param propagator looked up on first use; may supply {@code null} when no
	 * propagator is configured
	 */
	public PropagatorTraceContextSource(Supplier<Tracer> tracer, Supplier<Propagator> propagator) {
		this.tracer = tracer;
		this.propagator = propagator;
	}

	@Override
	public Map<String, String> currentTraceHeaders() {
		Span span = tracer().currentSpan();
		if (span == null) {
			return Map.of();
		}
		Map<String, String> headers = new LinkedHashMap<>();
		propagator().inject(span.context(), headers, Map::put);
		return headers;
	}

	private Tracer tracer() {
		Tracer current = this.resolvedTracer;
		if (current == null) {
			current = this.tracer.get();
			current = (current != null) ? current : Tracer.NOOP;
			this.resolvedTracer = current;
		}
		return current;
	}

	private Propagator propagator() {
		Propagator current = this.resolvedPropagator;
		if (current == null) {
			current = this.propagator.get();
			current = (current != null) ? current : Propagator.NOOP;
			this.resolvedPropagator = current;
		}
		return current;
	}

}
