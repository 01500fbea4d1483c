package dev.jobqueue.core;

import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Virtual threads for handlers on Java 21+, reached reflectively because the code is
 * compiled for Java 17.
 */
public final class VirtualThreads {

	private static final Logger logger = LoggerFactory.getLogger(VirtualThreads.class);

	private VirtualThreads() {
	}

	/**
	 * An executor starting one virtual thread per task, named {@code prefix0},
	 * {@code prefix1}, ...
	 * @return empty before Java 21
	 */
	public static Optional<ExecutorService> perTaskExecutor(String prefix) {
		try {
			// Call through the public Thread.Builder interface: the builder's own class
			// is internal to java.base.
			Class<?> builderType = Class.forName("java.lang.Thread$Builder");
			Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
			builder = builderType.getMethod("name", String.class, long.class).invoke(builder, prefix, 0L);
			ThreadFactory threads = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
			return Optional
				.of((ExecutorService) Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class)
					.invoke(null, threads));
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			if (Runtime.version().feature() >= 21) {
				// Not a Java 17 runtime: something blocks the lookup (a native image
				// without the queue's hints).
				logger.warn("Virtual threads are not available on Java {}: {}; handlers run on a thread pool instead",
						Runtime.version().feature(), ex.toString());
			}
			return Optional.empty();
		}
	}

}
