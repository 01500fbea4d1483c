package dev.jobqueue.core;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An executor whose life a test does not follow: shutting it down does nothing, it never
 * says it is shut down, and waiting for its end returns at once. Subclasses say what
 * {@code execute} does with a task.
 */
abstract class InertExecutorService extends AbstractExecutorService {

	@Override
	public void shutdown() {
	}

	@Override
	public List<Runnable> shutdownNow() {
		return List.of();
	}

	@Override
	public boolean isShutdown() {
		return false;
	}

	@Override
	public boolean isTerminated() {
		return false;
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return true;
	}

}
