package dev.jobqueue.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import dev.jobqueue.core.JobScheduler;

/**
 * Runs {@link JobScheduler#fireDue()} on its own thread once the context is refreshed (every handler's schedule
 * registered, schema migrated): at the next tick it knows of, and at least every
 * {@code jobqueue.scheduling.poll-interval} so that schedules changed or resumed elsewhere are seen.
 */
public class QueueScheduler implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueScheduler.class);

	private final JobScheduler scheduler;

	private final Clock clock;

	private final Duration pollInterval;

	private final boolean autoStartup;

	private volatile Thread thread;

	private volatile boolean stopping;

	public QueueScheduler(JobScheduler scheduler, Clock clock, Duration pollInterval) {
		this(scheduler, clock, pollInterval, true);
	}

	/** @param autoStartup whether it starts with the application ({@code jobqueue.scheduling.auto-startup}) */
	public QueueScheduler(JobScheduler scheduler, Clock clock, Duration pollInterval, boolean autoStartup) {
		this.scheduler = scheduler;
		this.autoStartup = autoStartup;
		this.clock = clock;
		if (pollInterval == null || pollInterval.isNegative() || pollInterval.isZero()) {
			throw new IllegalArgumentException("jobqueue.scheduling.poll-interval must be positive, got " + pollInterval);
		}
		this.pollInterval = pollInterval;
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	/** The schedules this lifecycle fires. */
	public JobScheduler scheduler() {
		return this.scheduler;
	}

	@Override
	public synchronized void start() {
		if (this.thread != null) {
			return;
		}
		this.scheduler.start();
		this.stopping = false;
		Thread loop = new Thread(this::loop, "jobqueue-scheduler");
		loop.setDaemon(true);
		this.thread = loop;
		loop.start();
	}

	@Override
	public synchronized void stop() {
		Thread loop = this.thread;
		if (loop == null) {
			return;
		}
		this.stopping = true;
		LockSupport.unpark(loop);
		try {
			loop.join(10_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.thread = null;
	}

	@Override
	public boolean isRunning() {
		return this.thread != null;
	}

	private void loop() {
		int failures = 0;
		while (!this.stopping) {
			long waitMillis;
			try {
				if (!this.scheduler.names().isEmpty()) {
					this.scheduler.fireDue();
				}
				failures = 0;
				waitMillis = nextWait();
			}
			catch (RuntimeException ex) {
				failures++;
				if (failures == 1 || failures % 20 == 0) {
					logger.error("Could not fire job schedules (failure {} in a row): {}", failures, ex.toString(), ex);
				}
				waitMillis = Math.min(this.pollInterval.toMillis() * failures, 30_000);
			}
			LockSupport.parkNanos(Duration.ofMillis(Math.max(1, waitMillis)).toNanos());
		}
	}

	private long nextWait() {
		long wait = this.pollInterval.toMillis();
		Instant next = this.scheduler.nextDue();
		if (next != null) {
			wait = Math.min(wait, Duration.between(this.clock.instant(), next).toMillis() + 1);
		}
		return wait;
	}

}
