package dev.jobqueue.autoconfigure;

import java.util.concurrent.ExecutorService;
import java.util.function.Function;

import org.springframework.context.SmartLifecycle;

import dev.jobqueue.core.LocalSignals;
import dev.jobqueue.core.worker.JobWorker;

/**
 * Starts the {@link JobWorker} once the context is refreshed (all handlers registered,
 * schema migrated) and stops it gracefully at shutdown, on a thread of its own while the
 * web server drains (see {@link QueueLifecycle}): claiming stops, running jobs get
 * {@code jobqueue.worker.shutdown-timeout} (cut to fit the shutdown phase) to finish, and
 * the rest go back to the queue, or fail if they must not run twice.
 */
public class QueueWorker implements SmartLifecycle {

	private final Function<ExecutorService, JobWorker> factory;

	private final LocalSignals signals;

	private final boolean autoStartup;

	private volatile JobWorker worker;

	/**
	 * @param factory builds a worker with this node's settings, handlers, listeners and
	 * interceptors whose handlers run on the given executor, or on its own pool when
	 * given {@code null}
	 * @param autoStartup whether the worker starts with the application
	 * ({@code jobqueue.worker.auto-startup})
	 */
	public QueueWorker(Function<ExecutorService, JobWorker> factory, LocalSignals signals, boolean autoStartup) {
		this.factory = factory;
		this.signals = signals;
		this.autoStartup = autoStartup;
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	/**
	 * A new worker like the one {@link #start()} runs, not started, whose handlers run on
	 * {@code executor}. With an executor that runs tasks on the caller's thread,
	 * {@link JobWorker#pollOnce()} runs due jobs and writes their outcomes before it
	 * returns: what the test support uses to run jobs on the test thread.
	 */
	public JobWorker newWorker(ExecutorService executor) {
		return this.factory.apply(executor);
	}

	@Override
	public synchronized void start() {
		if (this.worker != null) {
			return;
		}
		JobWorker created = this.factory.apply(null);
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

	/**
	 * Stops new work reaching the worker and forgets it: a start after this builds a new
	 * one.
	 */
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
