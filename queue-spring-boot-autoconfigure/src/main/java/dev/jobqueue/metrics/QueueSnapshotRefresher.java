package dev.jobqueue.metrics;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import dev.jobqueue.core.BackgroundLoop;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.views.QueueSnapshot;
import dev.jobqueue.views.QueueViews;
import dev.jobqueue.views.SnapshotSettings;

/**
 * Takes a {@link QueueSnapshot} on a schedule, on its own daemon thread, and hands it to
 * its consumers (the gauges of {@link QueueMetrics}). Scrapes read the latest snapshot,
 * so however often they come and however many tags the gauges have, the database sees one
 * snapshot per interval. A failed refresh keeps the previous snapshot and is logged (by
 * the {@link BackgroundLoop}: the first of a run of failures, then sparingly).
 */
public class QueueSnapshotRefresher implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(QueueSnapshotRefresher.class);

	private final QueueViews views;

	private final SnapshotSettings settings;

	private final Clock clock;

	private final Duration interval;

	private final Supplier<Map<String, FlowControl>> flowControls;

	private final List<Consumer<QueueSnapshot>> consumers = new CopyOnWriteArrayList<>();

	private volatile QueueSnapshot latest;

	private volatile BackgroundLoop loop;

	public QueueSnapshotRefresher(QueueViews views, SnapshotSettings settings, Clock clock, Duration interval) {
		this(views, settings, clock, interval, Map::of);
	}

	/**
	 * @param flowControls the flow control of each type this process handles with limits,
	 * as it stands at each refresh: the snapshot counts their held jobs
	 */
	public QueueSnapshotRefresher(QueueViews views, SnapshotSettings settings, Clock clock, Duration interval,
			Supplier<Map<String, FlowControl>> flowControls) {
		this.flowControls = (flowControls != null) ? flowControls : Map::of;
		this.views = Objects.requireNonNull(views, "'views' must not be null");
		this.settings = Objects.requireNonNull(settings, "'settings' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		Objects.requireNonNull(interval, "'interval' must not be null");
		if (interval.isZero() || interval.isNegative()) {
			throw new IllegalArgumentException("jobqueue.observability.refresh-interval must be positive, got "
					+ interval + "; use for example 10s");
		}
		this.interval = interval;
	}

	/**
	 * Hands every future snapshot, and the latest one if there is one, to
	 * {@code consumer}.
	 */
	public void addConsumer(Consumer<QueueSnapshot> consumer) {
		this.consumers.add(consumer);
		QueueSnapshot current = this.latest;
		if (current != null) {
			consumer.accept(current);
		}
	}

	/** The latest snapshot, or {@code null} before the first refresh. */
	public QueueSnapshot latest() {
		return this.latest;
	}

	/**
	 * Takes a snapshot now, on the calling thread.
	 * @return it, or {@code null} if it failed (the previous one is kept)
	 */
	public QueueSnapshot refresh() {
		try {
			return takeSnapshot();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not refresh the job queue snapshot behind the jobqueue.* gauges; they keep their "
					+ "last values until it succeeds: {}", ex.getMessage());
			return null;
		}
	}

	private synchronized QueueSnapshot takeSnapshot() {
		QueueSnapshot snapshot = this.views.snapshot(this.clock.instant(),
				this.settings.withFlowControls(this.flowControls.get()));
		this.latest = snapshot;
		for (Consumer<QueueSnapshot> consumer : this.consumers) {
			try {
				consumer.accept(snapshot);
			}
			catch (RuntimeException ex) {
				logger.warn("Job queue snapshot consumer {} failed: {}", consumer, ex.toString());
			}
		}
		return snapshot;
	}

	@Override
	public synchronized void start() {
		if (this.loop != null) {
			return;
		}
		BackgroundLoop refreshing = new BackgroundLoop("jobqueue-snapshot", () -> {
			takeSnapshot();
			return this.interval;
		}, this.interval, this.interval, logger, "Could not refresh the job queue snapshot behind the jobqueue.* "
				+ "gauges; they keep their last values until it succeeds");
		this.loop = refreshing;
		refreshing.start();
	}

	@Override
	public void stop() {
		BackgroundLoop refreshing;
		synchronized (this) {
			refreshing = this.loop;
			this.loop = null;
		}
		if (refreshing != null) {
			// A snapshot under way is not waited for: it only reads, and the thread never
			// keeps the JVM alive.
			refreshing.stop(Duration.ofSeconds(1));
		}
	}

	@Override
	public boolean isRunning() {
		return this.loop != null;
	}

}
