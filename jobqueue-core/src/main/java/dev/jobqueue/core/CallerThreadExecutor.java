package dev.jobqueue.core;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs each task on the thread that submits it, before {@code execute} returns: a
 * worker's poll then runs its jobs before it returns, which is how tests run due jobs on
 * the test thread.
 */
public final class CallerThreadExecutor extends AbstractExecutorService {

	private volatile boolean shutdown;

	@Override
	public void execute(Runnable command) {
		if (this.shutdown) {
			throw new RejectedExecutionException("Executor is shut down");
		}
		command.run();
	}

	@Override
	public void shutdown() {
		this.shutdown = true;
	}

	@Override
	public List<Runnable> shutdownNow() {
		this.shutdown = true;
		return List.of();
	}

	@Override
	public boolean isShutdown() {
		return this.shutdown;
	}

	@Override
	public boolean isTerminated() {
		return this.shutdown;
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return true;
	}

}
