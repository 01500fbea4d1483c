package dev.jobqueue.core;

import java.util.Map;

import dev.jobqueue.core.store.TraceHeaders;

/**
 * Tells the propagation headers of the trace context current on the calling thread (for
 * example {@code traceparent}, {@code tracestate} and {@code baggage}, or B3 headers:
 * whatever the application's tracer propagates), so that an enqueued job is stored with
 * them and its run continues that trace. The queue does not read them; it stores them
 * with the job (see {@link TraceHeaders}) and hands them back to the run.
 */
@FunctionalInterface
public interface TraceContextSource {

	/** The current context's propagation headers; empty if there is no current trace. */
	Map<String, String> currentTraceHeaders();

}
