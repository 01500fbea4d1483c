package dev.jobqueue.autoconfigure;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

import dev.jobqueue.core.RetentionCleaner;

/**
 * Runs the queue's housekeeping on its own thread every {@code jobqueue.retention.interval}, without needing
 * {@code @EnableScheduling}: the retention cleanup (when {@code jobqueue.retention.enabled}), which ends with
 * a write-ahead log checkpoint; with retention off, only the checkpoint. Runs never overlap (fixed delay).
 * At shutdown it stops a cleanup between two batches and waits for it briefly.
 */
public class QueueHousekeeping implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueHousekeeping.class);

	private final RetentionCleaner cleaner;

	private final Duration interval;

	private final boolean purge;

	private volatile ScheduledExecutorService executor;

	private volatile boolean running;

	public QueueHousekeeping(RetentionCleaner cleaner, Duration interval, boolean purge) {
		this.cleaner = Objects.requireNonNull(cleaner, "'cleaner' must not be null");
		Objects.requireNonNull(interval, "'interval' must not be null");
		if (interval.isZero() || interval.isNegative()) {
			throw new IllegalArgumentException("jobqueue.retention.interval must be positive (got " + interval
					+ "), for example 1m");
		}
		this.interval = interval;
		this.purge = purge;
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		ScheduledExecutorService scheduler = Executors
			.newSingleThreadScheduledExecutor(new CustomizableThreadFactory("jobqueue-housekeeping-"));
		this.running = true;
		long millis = this.interval.toMillis();
		scheduler.scheduleWithFixedDelay(this::runOnce, millis, millis, TimeUnit.MILLISECONDS);
		this.executor = scheduler;
	}

	/** One round: cleanup (or only a checkpoint), errors logged, never thrown to the scheduler. */
	void runOnce() {
		try {
			if (this.purge) {
				this.cleaner.purgeOnce(() -> !this.running);
			}
			else {
				this.cleaner.checkpoint();
			}
		}
		catch (Throwable ex) {
			logger.warn("Queue housekeeping failed; it runs again in {}: {}", this.interval, ex.toString(), ex);
		}
	}

	@Override
	public synchronized void stop() {
		ScheduledExecutorService scheduler = this.executor;
		this.running = false;
		if (scheduler == null) {
			return;
		}
		scheduler.shutdownNow();
		try {
			if (!scheduler.awaitTermination(10, TimeUnit.SECONDS)) {
				logger.warn("Queue housekeeping did not stop within 10 s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.executor = null;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
