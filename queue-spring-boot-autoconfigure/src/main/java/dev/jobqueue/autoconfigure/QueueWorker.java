package dev.jobqueue.autoconfigure;

import java.util.function.Supplier;

import org.springframework.context.SmartLifecycle;

import dev.jobqueue.core.JobWorker;
import dev.jobqueue.core.LocalSignals;

/**
 * Starts the {@link JobWorker} once the context is refreshed (all handlers registered, schema migrated) and
 * stops it gracefully first thing at shutdown: claiming stops, running jobs get
 * {@code jobqueue.worker.shutdown-timeout} to finish, and the rest go back to the queue.
 */
public class QueueWorker implements SmartLifecycle {

	private final Supplier<JobWorker> factory;

	private final LocalSignals signals;

	private volatile JobWorker worker;

	public QueueWorker(Supplier<JobWorker> factory, LocalSignals signals) {
		this.factory = factory;
		this.signals = signals;
	}

	@Override
	public synchronized void start() {
		if (this.worker != null) {
			return;
		}
		JobWorker created = this.factory.get();
		created.start();
		this.signals.addListener(created);
		this.worker = created;
	}

	@Override
	public synchronized void stop() {
		JobWorker running = this.worker;
		if (running == null) {
			return;
		}
		this.signals.removeListener(running);
		running.stop();
		this.worker = null;
	}

	@Override
	public boolean isRunning() {
		return this.worker != null;
	}

	/** The running worker, or {@code null} when stopped. */
	public JobWorker worker() {
		return this.worker;
	}

}
