package dev.jobqueue.core;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import dev.jobqueue.JobQueueException;

/**
 * The job types this process handles. Registration happens at start-up, before the worker
 * starts.
 */
public final class HandlerRegistry {

	private final Map<String, HandlerDefinition> handlers = Collections.synchronizedMap(new LinkedHashMap<>());

	/**
	 * @throws JobQueueException if the type already has a handler, naming both
	 */
	public void register(HandlerDefinition handler) {
		HandlerDefinition existing = this.handlers.putIfAbsent(handler.type(), handler);
		if (existing != null) {
			throw new JobQueueException("Job type '" + handler.type() + "' has two handlers: " + existing.source()
					+ " and " + handler.source() + ". Give each @JobHandler its own type (its value), or remove one "
					+ "of them.");
		}
	}

	public Optional<HandlerDefinition> find(String type) {
		return Optional.ofNullable(this.handlers.get(type));
	}

	public Set<String> types() {
		synchronized (this.handlers) {
			return Set.copyOf(this.handlers.keySet());
		}
	}

	public Collection<HandlerDefinition> all() {
		synchronized (this.handlers) {
			return java.util.List.copyOf(this.handlers.values());
		}
	}

	/**
	 * The flow control of each handled type that has limits, by type: what this process
	 * knows of them, for the counts of held jobs.
	 */
	public Map<String, FlowControl> flowControls() {
		Map<String, FlowControl> flows = new TreeMap<>();
		for (HandlerDefinition handler : all()) {
			if (handler.flowControl().limits()) {
				flows.put(handler.type(), handler.flowControl());
			}
		}
		return Collections.unmodifiableMap(flows);
	}

	public boolean isEmpty() {
		return this.handlers.isEmpty();
	}

}
