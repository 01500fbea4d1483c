package dev.jobqueue.docs;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the stand-ins around the guide's snippets (a payment provider, a mail sender, a
 * CDN) were asked to do, for {@link GuideSnippetsTests} to check what the text says: the
 * card charged once, the file published. Public, as the snippets' classes are compiled
 * into packages of their own.
 */
public final class SnippetCalls {

	private static final Map<String, List<Object>> calls = new ConcurrentHashMap<>();

	private SnippetCalls() {
	}

	public static void record(String call, Object argument) {
		calls.computeIfAbsent(call, (name) -> new CopyOnWriteArrayList<>()).add(argument);
	}

	static List<Object> of(String call) {
		return calls.getOrDefault(call, List.of());
	}

}
