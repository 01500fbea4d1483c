package dev.jobqueue.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.Environment;

/**
 * Where the queue's components (worker, scheduler, housekeeping) sit in the context's
 * lifecycle.
 *
 * <p>
 * They stop in the phase of the web server's graceful shutdown
 * ({@code DEFAULT_PHASE - 1024}), each on a thread of its own
 * ({@link SmartLifecycle#stop(Runnable)}), so the server drains its requests while the
 * worker drains its jobs, and the whole shutdown takes one
 * {@code spring.lifecycle.timeout-per-shutdown-phase}, not the sum of them. Neither needs
 * the other to stop: a request still in flight may enqueue (the queue's database closes
 * only when the beans are destroyed, after every phase), and no handler needs the web
 * server. The worker's wait for running jobs is cut to fit the phase, keeping a reserve
 * to write the hand-backs before the context moves on.
 */
final class QueueLifecycle {

	/** The phase of Spring Boot's {@code WebServerGracefulShutdownLifecycle}. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

	/** Spring Boot's default of {@code spring.lifecycle.timeout-per-shutdown-phase}. */
	private static final Duration DEFAULT_PHASE_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * The most kept back from the phase to write outcomes and hand-backs after the wait.
	 */
	private static final Duration MAX_RESERVE = Duration.ofSeconds(3);

	private QueueLifecycle() {
	}

	/** The shutdown phase's timeout as configured. */
	static Duration phaseTimeout(Environment environment) {
		if (environment == null) {
			return DEFAULT_PHASE_TIMEOUT;
		}
		return Binder.get(environment)
			.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(DEFAULT_PHASE_TIMEOUT);
	}

	/**
	 * How long the worker waits for running jobs at shutdown: {@code shutdownTimeout},
	 * but short enough that handing back the rest fits in the phase (a quarter of it is
	 * kept back, at most three seconds).
	 */
	static Duration workerWait(Duration shutdownTimeout, Duration phaseTimeout) {
		Duration reserve = phaseTimeout.dividedBy(4);
		if (reserve.compareTo(MAX_RESERVE) > 0) {
			reserve = MAX_RESERVE;
		}
		Duration fits = phaseTimeout.minus(reserve);
		return (shutdownTimeout.compareTo(fits) > 0) ? fits : shutdownTimeout;
	}

	/** Runs {@code stopping}, then {@code callback}, on a daemon thread of its own. */
	static void stopInBackground(String name, Runnable stopping, Runnable callback) {
		Thread thread = new Thread(() -> {
			try {
				stopping.run();
			}
			finally {
				callback.run();
			}
		}, name);
		thread.setDaemon(true);
		thread.start();
	}

}
