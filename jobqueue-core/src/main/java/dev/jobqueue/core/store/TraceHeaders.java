package dev.jobqueue.core.store;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The text form in which a job stores the propagation headers of its enqueuing trace: one
 * {@code name=value} per line. Header names cannot hold {@code =} and header values
 * cannot hold line breaks, so no escaping is needed; an entry that breaks either rule is
 * left out rather than corrupting the others.
 * <p>
 * Jobs stored before headers were kept hold a bare W3C {@code traceparent};
 * {@link #decode} reads that form too.
 */
public final class TraceHeaders {

	private TraceHeaders() {
	}

	/** The stored form of the headers, or {@code null} if there are none. */
	public static String encode(Map<String, String> headers) {
		if (headers == null || headers.isEmpty()) {
			return null;
		}
		StringBuilder text = new StringBuilder();
		headers.forEach((name, value) -> {
			if (isStorable(name, value)) {
				text.append((text.length() > 0) ? "\n" : "").append(name).append('=').append(value);
			}
		});
		return (text.length() > 0) ? text.toString() : null;
	}

	/**
	 * The headers of a stored form; empty for {@code null}. Stored data is not trusted:
	 * bad lines are skipped.
	 */
	public static Map<String, String> decode(String stored) {
		if (stored == null || stored.isBlank()) {
			return Map.of();
		}
		if (stored.indexOf('=') < 0 && stored.indexOf('\n') < 0) {
			return Map.of("traceparent", stored.strip());
		}
		Map<String, String> headers = new LinkedHashMap<>();
		for (String line : stored.split("\n")) {
			int equals = line.indexOf('=');
			if (equals > 0) {
				headers.put(line.substring(0, equals), line.substring(equals + 1));
			}
		}
		return Collections.unmodifiableMap(headers);
	}

	/** The W3C {@code traceparent} among the stored headers, or {@code null}. */
	public static String traceParent(String stored) {
		return decode(stored).get("traceparent");
	}

	private static boolean isStorable(String name, String value) {
		return name != null && value != null && !name.isEmpty() && name.indexOf('=') < 0 && !containsLineBreak(name)
				&& !containsLineBreak(value);
	}

	private static boolean containsLineBreak(String text) {
		return text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0;
	}

}
