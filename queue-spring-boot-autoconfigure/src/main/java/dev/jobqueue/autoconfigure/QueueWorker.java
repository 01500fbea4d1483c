package dev.jobqueue.autoconfigure;

import java.util.function.Supplier;

import org.springframework.context.SmartLifecycle;

import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.JobWorker;

/**
 * Starts the {@link JobWorker} once the context is refreshed (all handlers registered, schema migrated) and
 * stops it gracefully first thing at shutdown: claiming stops, running jobs get
 * {@code jobqueue.worker.shutdown-timeout} to finish, and the rest go back to the queue.
 */
public class QueueWorker implements SmartLifecycle {

	private final Supplier<JobWorker> factory;

	private final DefaultJobQueue queue;

	private volatile JobWorker worker;

	public QueueWorker(Supplier<JobWorker> factory, DefaultJobQueue queue) {
		this.factory = factory;
		this.queue = queue;
	}

	@Override
	public synchronized void start() {
		if (this.worker != null) {
			return;
		}
		JobWorker created = this.factory.get();
		created.start();
		if (this.queue != null) {
			this.queue.setSignals(created);
		}
		this.worker = created;
	}

	@Override
	public synchronized void stop() {
		JobWorker running = this.worker;
		if (running == null) {
			return;
		}
		if (this.queue != null) {
			this.queue.setSignals(null);
		}
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
