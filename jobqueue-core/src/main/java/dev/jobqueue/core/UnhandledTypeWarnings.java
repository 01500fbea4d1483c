package dev.jobqueue.core;

import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns, once per type, when a job is enqueued for a type that neither this process nor
 * any worker that reported in recently on the same database handles: a typo in a type
 * name, or a handler not deployed yet, would otherwise leave the job waiting without a
 * word. Types this process handles are never looked up; the others are looked up once
 * each, and at most {@value #MAX_TYPES} of them, so the check costs nothing in the steady
 * state and its memory is bounded. A type a few letters from one that is handled (here or
 * by a live worker) is named in the warning, as the handler settings' check does.
 */
public final class UnhandledTypeWarnings {

	static final int MAX_TYPES = 1000;

	private static final Logger logger = LoggerFactory.getLogger(UnhandledTypeWarnings.class);

	private final HandlerRegistry localHandlers;

	private final Supplier<? extends Collection<String>> liveWorkerTypes;

	private final Set<String> looked = ConcurrentHashMap.newKeySet();

	/**
	 * @param localHandlers the handlers of this process
	 * @param liveWorkerTypes the types the workers that reported in recently, in any
	 * process on the database, handle; {@code null} when that cannot be told (no warning
	 * then)
	 */
	public UnhandledTypeWarnings(HandlerRegistry localHandlers,
			Supplier<? extends Collection<String>> liveWorkerTypes) {
		this.localHandlers = Objects.requireNonNull(localHandlers, "'localHandlers' must not be null");
		this.liveWorkerTypes = Objects.requireNonNull(liveWorkerTypes, "'liveWorkerTypes' must not be null");
	}

	/**
	 * Called after a job of this type was enqueued: a map lookup for a type this process
	 * handles, so the enqueue path allocates nothing for it.
	 */
	void enqueued(String type) {
		if (this.localHandlers.find(type).isPresent() || this.looked.size() >= MAX_TYPES || !this.looked.add(type)) {
			return;
		}
		try {
			Collection<String> elsewhere = this.liveWorkerTypes.get();
			if (elsewhere != null && !elsewhere.contains(type)) {
				Set<String> handled = new TreeSet<>(this.localHandlers.types());
				handled.addAll(elsewhere);
				String meant = NearestName.nearest(type, handled);
				logger.warn("A job of type '{}' was enqueued, but no process on the queue's database handles that "
						+ "type: this process has no @JobHandler(\"{}\") and no worker that reported in recently "
						+ "has one. The job waits until a process with such a handler starts. {}(Said once per "
						+ "type.)", type, type,
						(meant != null) ? "Did you mean '" + meant + "'? " : "Check the type's spelling. ");
			}
		}
		catch (RuntimeException ex) {
			// Looked up again with the next enqueue of the type; enqueue itself
			// succeeded.
			this.looked.remove(type);
			logger.debug("Could not tell whether job type '{}' is handled anywhere", type, ex);
		}
	}

}
