package dev.jobqueue.autoconfigure;

import java.util.function.Supplier;

import org.springframework.context.SmartLifecycle;

import dev.jobqueue.core.JobWorker;
import dev.jobqueue.core.LocalSignals;

/**
 * Starts the {@link JobWorker} once the context is refreshed (all handlers registered, schema migrated) and
 * stops it gracefully at shutdown, on a thread of its own while the web server drains (see
 * {@link QueueLifecycle}): claiming stops, running jobs get {@code jobqueue.worker.shutdown-timeout} (cut to fit
 * the shutdown phase) to finish, and the rest go back to the queue, or fail if they must not run twice.
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
	public void stop() {
		JobWorker running = detach();
		if (running != null) {
			running.stop();
		}
	}

	@Override
	public void stop(Runnable callback) {
		JobWorker running = detach();
		if (running == null) {
			callback.run();
			return;
		}
		QueueLifecycle.stopInBackground("jobqueue-worker-shutdown", running::stop, callback);
	}

	/** Stops new work reaching the worker and forgets it: a start after this builds a new one. */
	private synchronized JobWorker detach() {
		JobWorker running = this.worker;
		if (running != null) {
			this.signals.removeListener(running);
			this.worker = null;
		}
		return running;
	}

	@Override
	public int getPhase() {
		return QueueLifecycle.PHASE;
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
