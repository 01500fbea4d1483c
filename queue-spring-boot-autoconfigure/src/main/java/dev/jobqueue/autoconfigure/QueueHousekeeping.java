package dev.jobqueue.autoconfigure;

import java.time.Duration;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import dev.jobqueue.core.BackgroundLoop;
import dev.jobqueue.core.retention.RetentionCleaner;

/**
 * Runs the queue's housekeeping on its own thread every
 * {@code jobqueue.retention.interval}, without needing {@code @EnableScheduling}: the
 * retention cleanup (when {@code jobqueue.retention.enabled}), which ends with a
 * write-ahead log checkpoint; with retention off, only the checkpoint. Either way, on a
 * PostgreSQL server whose autovacuum is off, a vacuum of the queue's tables. Runs never
 * overlap (the interval is counted from the end of a run). At shutdown it stops a cleanup
 * between two batches and waits for it briefly.
 */
public class QueueHousekeeping implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueHousekeeping.class);

	private final RetentionCleaner cleaner;

	private final Duration interval;

	private final boolean purge;

	private volatile BackgroundLoop loop;

	private volatile boolean running;

	public QueueHousekeeping(RetentionCleaner cleaner, Duration interval, boolean purge) {
		this.cleaner = Objects.requireNonNull(cleaner, "'cleaner' must not be null");
		Objects.requireNonNull(interval, "'interval' must not be null");
		if (interval.isZero() || interval.isNegative()) {
			throw new IllegalArgumentException(
					"jobqueue.retention.interval must be positive (got " + interval + "), for example 1m");
		}
		this.interval = interval;
		this.purge = purge;
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		// After a failure the next run comes after the usual interval: housekeeping is
		// never urgent.
		BackgroundLoop housekeeping = new BackgroundLoop("jobqueue-housekeeping", this::housekeep, this.interval,
				this.interval, logger, "Queue housekeeping failed");
		this.loop = housekeeping;
		checkTableVacuums();
		housekeeping.start(this.interval);
	}

	/** One round: cleanup (or only a checkpoint), errors logged, never thrown. */
	void runOnce() {
		try {
			housekeep();
		}
		catch (RuntimeException ex) {
			logger.warn("Queue housekeeping failed: {}", ex.toString(), ex);
		}
	}

	private Duration housekeep() {
		if (this.purge) {
			this.cleaner.purgeOnce(() -> !this.running);
		}
		else {
			this.cleaner.upkeep();
		}
		return this.interval;
	}

	/**
	 * Says at start-up whether the queue vacuums its tables itself (autovacuum off on a
	 * PostgreSQL server) or, set not to, that nothing will.
	 */
	private void checkTableVacuums() {
		this.cleaner.tableVacuums().ifPresent((vacuums) -> {
			try {
				vacuums.check();
			}
			catch (RuntimeException ex) {
				logger.warn("Could not find out whether autovacuum looks after the queue's tables; the next "
						+ "housekeeping run asks again: {}", ex.toString());
			}
		});
	}

	@Override
	public void stop() {
		BackgroundLoop housekeeping = detach();
		if (housekeeping != null) {
			housekeeping.stop(Duration.ofSeconds(10));
		}
	}

	/**
	 * Stops on a thread of its own, beside the worker and the web server (see
	 * {@link QueueLifecycle}); a cleanup stops between two batches.
	 */
	@Override
	public void stop(Runnable callback) {
		BackgroundLoop housekeeping = detach();
		if (housekeeping == null) {
			callback.run();
			return;
		}
		QueueLifecycle.stopInBackground("jobqueue-housekeeping-shutdown",
				() -> housekeeping.stop(Duration.ofSeconds(10)), callback);
	}

	private synchronized BackgroundLoop detach() {
		BackgroundLoop housekeeping = this.loop;
		this.running = false;
		this.loop = null;
		return housekeeping;
	}

	@Override
	public int getPhase() {
		return QueueLifecycle.PHASE;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
