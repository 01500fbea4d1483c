package dev.jobqueue.core;

/**
 * Tells the W3C {@code traceparent} of the trace current on the calling thread, so that an enqueued job is
 * stored with it and its run continues that trace.
 */
@FunctionalInterface
public interface TraceParentSource {

	/** The current {@code traceparent} ({@code 00-<trace id>-<span id>-<flags>}), or {@code null} if none. */
	String currentTraceParent();

}
