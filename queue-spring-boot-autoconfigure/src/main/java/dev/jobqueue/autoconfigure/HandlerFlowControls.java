package dev.jobqueue.autoconfigure;

import org.jspecify.annotations.Nullable;

import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.RateLimit;

/**
 * A handler's {@link FlowControl}: the {@link JobHandler} attributes, each replaced by
 * {@code jobqueue.handlers.<type>.*} where that is set. A value that cannot work fails
 * start-up with a {@link JobQueueException} whose first sentence says what is wrong (the
 * handler, the attribute or property, the value) and whose second says what to do (with a
 * valid example): Boot's failure analysis shows them as description and action.
 */
final class HandlerFlowControls {

	private static final QueueProperties.Handler NOT_CONFIGURED = new QueueProperties.Handler();

	private HandlerFlowControls() {
	}

	/**
	 * The flow control of the handler of {@code type}.
	 * @param source the handler, for messages (bean and method)
	 * @param attributes the annotation's string attributes, placeholders resolved
	 * @param configured {@code jobqueue.handlers.<type>}, or {@code null}
	 */
	static FlowControl of(String type, String source, JobHandler annotation, HandlerMethods.Attributes attributes,
			QueueProperties.@Nullable Handler configured) {
		QueueProperties.Handler properties = (configured != null) ? configured : NOT_CONFIGURED;
		String prefix = prefix(type);
		String onHandler = "Invalid @JobHandler on " + source + ": ";
		RateLimit rateLimit = rateLimit(onHandler,
				pick(properties.getRateLimit(), prefix + "rate-limit", attributes.rateLimit(), "rateLimit"));
		RateLimit keyRateLimit = rateLimit(onHandler, pick(properties.getKeyRateLimit(), prefix + "key-rate-limit",
				attributes.keyRateLimit(), "keyRateLimit"));
		Setting<Integer> keyConcurrency = pick(properties.getKeyConcurrency(), prefix + "key-concurrency",
				annotation.keyConcurrency(), "keyConcurrency");
		Setting<Boolean> ordered = pick(properties.getOrdered(), prefix + "ordered", annotation.ordered(), "ordered");
		Setting<Boolean> blockOnFailure = pick(properties.getBlockOnFailure(), prefix + "block-on-failure",
				annotation.blockOnFailure(), "blockOnFailure");
		checkKeyConcurrency(onHandler, keyConcurrency);
		if (ordered.value() && keyConcurrency.value() > 1) {
			throw new JobQueueException(onHandler + ordered.shown() + " runs one job of a key at a time, which "
					+ keyConcurrency.shown() + " contradicts. Remove " + keyConcurrency.name() + " (or set it to 1) "
					+ "to keep the jobs of a key in enqueue order, or drop " + ordered.name() + " to run up to "
					+ keyConcurrency.value() + " jobs of a key at once in any order.");
		}
		if (!ordered.value() && !blockOnFailure.value()) {
			String unordered = ordered.fromProperty() ? ordered.shown() + " makes this one unordered"
					: "this one is not ordered";
			throw new JobQueueException(onHandler + blockOnFailure.shown() + " applies only to ordered handlers, and "
					+ unordered + ". Set " + ordered.name() + " to true as well (the jobs of a key then start one "
					+ "after another in enqueue order, and one that failed for good lets the next go), or remove "
					+ blockOnFailure.name() + ".");
		}
		return new FlowControl(rateLimit, keyRateLimit, keyConcurrency.value(), ordered.value(),
				blockOnFailure.value());
	}

	/**
	 * Checks {@code jobqueue.handlers.<type>} on its own, for a type this process has no
	 * handler of: values that cannot work anywhere (a malformed limit, a negative
	 * concurrency) fail start-up here too. Whether they fit together is for the process
	 * that has the handler to say.
	 */
	static void check(String type, QueueProperties.Handler configured) {
		String prefix = prefix(type);
		String context = "Invalid setting for job type '" + type + "' (no handler of it in this process): ";
		if (configured.getRateLimit() != null) {
			rateLimit(context, new Setting<>(configured.getRateLimit(), prefix + "rate-limit", true));
		}
		if (configured.getKeyRateLimit() != null) {
			rateLimit(context, new Setting<>(configured.getKeyRateLimit(), prefix + "key-rate-limit", true));
		}
		if (configured.getKeyConcurrency() != null) {
			checkKeyConcurrency(context,
					new Setting<>(configured.getKeyConcurrency(), prefix + "key-concurrency", true));
		}
	}

	/**
	 * The start of the properties of {@code type}, as a user writes them: in brackets
	 * when the type is more than letters, digits and dashes (dots would split it).
	 */
	static String prefix(String type) {
		return "jobqueue.handlers" + (type.matches("[A-Za-z0-9][A-Za-z0-9-]*") ? "." + type : "[" + type + "]") + ".";
	}

	private static @Nullable RateLimit rateLimit(String context, Setting<String> setting) {
		String text = setting.value().strip();
		if (text.isEmpty()) {
			return null;
		}
		try {
			return RateLimit.parse(text);
		}
		catch (IllegalArgumentException ex) {
			// RateLimit's message starts with the value in quotes: "100/" is not a ...
			throw new JobQueueException(context + setting.name() + " " + ex.getMessage());
		}
	}

	private static void checkKeyConcurrency(String context, Setting<Integer> keyConcurrency) {
		if (keyConcurrency.value() < 0) {
			throw new JobQueueException(context + keyConcurrency.name() + " " + keyConcurrency.value()
					+ " is negative. Set it to the most jobs of one key that may run at once, for example 1, or to 0 "
					+ "for no limit.");
		}
	}

	private static <T> Setting<T> pick(@Nullable T property, String propertyName, T attribute, String attributeName) {
		return (property != null) ? new Setting<>(property, propertyName, true)
				: new Setting<>(attribute, attributeName, false);
	}

	/**
	 * One setting's value, and its name in messages: the property where the property set
	 * it, else the attribute.
	 */
	private record Setting<T>(T value, String name, boolean fromProperty) {

		/** The setting with its value, as the user wrote it. */
		String shown() {
			return this.name + (this.fromProperty ? "=" : " = ") + this.value;
		}

	}

}
