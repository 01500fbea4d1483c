package dev.jobqueue.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import dev.jobqueue.core.BackgroundLoop;
import dev.jobqueue.core.schedule.JobScheduler;

/**
 * Runs {@link JobScheduler#fireDue()} on its own thread once the context is refreshed
 * (every handler's schedule registered, schema migrated): at the next tick it knows of,
 * and at least every {@code jobqueue.scheduling.poll-interval} so that schedules changed
 * or resumed elsewhere are seen.
 */
public class QueueScheduler implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueScheduler.class);

	/** The longest wait after the database failed, however often in a row. */
	private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

	private final JobScheduler scheduler;

	private final Clock clock;

	private final Duration pollInterval;

	private final boolean autoStartup;

	private volatile BackgroundLoop loop;

	public QueueScheduler(JobScheduler scheduler, Clock clock, Duration pollInterval) {
		this(scheduler, clock, pollInterval, true);
	}

	/**
	 * @param autoStartup whether it starts with the application
	 * ({@code jobqueue.scheduling.auto-startup})
	 */
	public QueueScheduler(JobScheduler scheduler, Clock clock, Duration pollInterval, boolean autoStartup) {
		this.scheduler = scheduler;
		this.autoStartup = autoStartup;
		this.clock = clock;
		if (pollInterval == null || pollInterval.isNegative() || pollInterval.isZero()) {
			throw new IllegalArgumentException(
					"jobqueue.scheduling.poll-interval must be positive, got " + pollInterval);
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
		if (this.loop != null) {
			return;
		}
		this.scheduler.start();
		Duration backoff = (this.pollInterval.compareTo(MAX_BACKOFF) < 0) ? this.pollInterval : MAX_BACKOFF;
		BackgroundLoop firing = new BackgroundLoop("jobqueue-scheduler", this::fireDue, backoff, MAX_BACKOFF, logger,
				"Could not fire job schedules");
		this.loop = firing;
		firing.start();
	}

	@Override
	public void stop() {
		BackgroundLoop firing = detach();
		if (firing != null) {
			firing.stop(Duration.ofSeconds(10));
		}
	}

	/**
	 * Stops on a thread of its own, beside the worker and the web server (see
	 * {@link QueueLifecycle}).
	 */
	@Override
	public void stop(Runnable callback) {
		BackgroundLoop firing = detach();
		if (firing == null) {
			callback.run();
			return;
		}
		QueueLifecycle.stopInBackground("jobqueue-scheduler-shutdown", () -> firing.stop(Duration.ofSeconds(10)),
				callback);
	}

	private synchronized BackgroundLoop detach() {
		BackgroundLoop firing = this.loop;
		this.loop = null;
		return firing;
	}

	@Override
	public int getPhase() {
		return QueueLifecycle.PHASE;
	}

	@Override
	public boolean isRunning() {
		return this.loop != null;
	}

	/**
	 * The loop's step: fires what is due, then waits until the next tick, or the poll
	 * interval at most.
	 */
	private Duration fireDue() {
		if (!this.scheduler.names().isEmpty()) {
			this.scheduler.fireDue();
		}
		long wait = this.pollInterval.toMillis();
		Instant next = this.scheduler.nextDue();
		if (next != null) {
			wait = Math.min(wait, Duration.between(this.clock.instant(), next).toMillis() + 1);
		}
		return Duration.ofMillis(Math.max(1, wait));
	}

}
