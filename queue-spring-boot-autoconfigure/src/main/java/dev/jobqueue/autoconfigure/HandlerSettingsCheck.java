package dev.jobqueue.autoconfigure;

import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;

import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.NearestName;

/**
 * Looks, once every handler is registered, at the {@code jobqueue.handlers.<type>}
 * settings of types this process has no handler of (each handler's own settings were
 * checked as it registered). A value that cannot work anywhere fails start-up, as it
 * would where the handler is; a type a few letters from one handled here (or differing
 * only in case, as an environment variable would write it) is named in a warning, since
 * its settings would otherwise be ignored without a word. Other unhandled types pass
 * quietly: one configuration often serves several applications.
 */
class HandlerSettingsCheck implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(HandlerSettingsCheck.class);

	private final Map<String, QueueProperties.Handler> settings;

	private final HandlerRegistry handlers;

	HandlerSettingsCheck(Map<String, QueueProperties.Handler> settings, HandlerRegistry handlers) {
		this.settings = settings;
		this.handlers = handlers;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Set<String> handled = this.handlers.types();
		this.settings.forEach((type, configured) -> {
			if (handled.contains(type)) {
				return;
			}
			HandlerFlowControls.check(type, configured);
			String meant = handled.stream()
				.filter((candidate) -> candidate.equalsIgnoreCase(type))
				.findFirst()
				.orElseGet(() -> NearestName.nearest(type, handled));
			if (meant != null) {
				logger.warn(
						"{}* is set, but no handler in this process handles job type '{}', so it is ignored: "
								+ "did you mean '{}' ({}*)? Write the type as @JobHandler does (in brackets if it has "
								+ "dots).",
						HandlerFlowControls.prefix(type), type, meant, HandlerFlowControls.prefix(meant));
			}
		});
	}

}
