package dev.jobqueue.benchmarks;

import java.time.Duration;
import java.util.Map;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.JobInvoker;
import dev.jobqueue.core.RateLimit;

/**
 * The limits the flow control rows measure, each as a user declares it on a
 * {@link JobHandler @JobHandler} method of a bean (the starter's stack) and as the same
 * {@link FlowControl} on a handler's definition (the bare engine's). Each handler is the
 * benchmark's one job type, so a run's worker claims that type alone.
 */
final class FlowHandlers {

	/** The property the rate-limited handler's {@code rateLimit} placeholder reads. */
	static final String RATE_LIMIT_PROPERTY = "benchmark.flow.rate-limit";

	private FlowHandlers() {
	}

	/** One handler's limits. */
	enum Limits {

		/** No flow control: the handler as most are declared. */
		NONE(StarterNode.NoopHandler.class),

		/** {@code keyConcurrency = 1}. */
		KEY_CONCURRENCY_1(KeyConcurrencyOne.class),

		/** {@code ordered = true}: one at a time per key, in enqueue order. */
		ORDERED(Ordered.class),

		/** {@code rateLimit = "N/1s"} for the type. */
		RATE_LIMIT(RateLimited.class);

		/** The class of the application's handler bean. */
		final Class<?> bean;

		Limits(Class<?> bean) {
			this.bean = bean;
		}

		/** What the annotation of {@link #bean} declares, for the engine's definition. */
		FlowControl flowControl(int perSecond) {
			return switch (this) {
				case NONE -> FlowControl.NONE;
				case KEY_CONCURRENCY_1 -> new FlowControl(null, null, 1, false, true);
				case ORDERED -> new FlowControl(null, null, 0, true, true);
				case RATE_LIMIT -> new FlowControl(rateLimit(perSecond), null, 0, false, true);
			};
		}

		/** The engine's handler of the benchmark's type with these limits. */
		HandlerDefinition definition(int perSecond, JobInvoker invoker) {
			return new HandlerDefinition(QueueNode.TYPE, invoker, 0, null, 0, true, "flow benchmark, " + name(), 0,
					flowControl(perSecond));
		}

		/** The starter application's properties for these limits. */
		Map<String, Object> properties(int perSecond) {
			return (this == RATE_LIMIT) ? Map.of(RATE_LIMIT_PROPERTY, perSecond + "/1s") : Map.of();
		}

	}

	static RateLimit rateLimit(int perSecond) {
		return new RateLimit(perSecond, Duration.ofSeconds(1));
	}

	/** Most one running job of a key at once, across every process. */
	static class KeyConcurrencyOne {

		@JobHandler(value = QueueNode.TYPE, keyConcurrency = 1)
		public void run(Payload payload, JobContext context) {
			StarterNode.handle(payload, context);
		}

	}

	/** A key's jobs one after another, in the order they were enqueued. */
	static class Ordered {

		@JobHandler(value = QueueNode.TYPE, ordered = true)
		public void run(Payload payload, JobContext context) {
			StarterNode.handle(payload, context);
		}

	}

	/** Most N starts of the type in any second; N from the run's options. */
	static class RateLimited {

		@JobHandler(value = QueueNode.TYPE, rateLimit = "${" + RATE_LIMIT_PROPERTY + "}")
		public void run(Payload payload, JobContext context) {
			StarterNode.handle(payload, context);
		}

	}

}
