package dev.jobqueue.core.worker;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.LogThrottle;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;

/**
 * The worker's view of its {@link WorkerListener}: a listener that throws (anything, an
 * {@link Error} too) is logged, at most a few times a minute per method, and never
 * changes what the worker does. A listener is told after the fact (a claim committed, an
 * outcome written): a failure there must not leave claimed jobs undispatched or outcomes
 * unrecorded.
 */
final class GuardedWorkerListener implements WorkerListener {

	private static final Logger logger = LoggerFactory.getLogger(WorkerListener.class);

	private final WorkerListener delegate;

	private final LogThrottle throttle = new LogThrottle(3, Duration.ofMinutes(1), Ticker.SYSTEM);

	private GuardedWorkerListener(WorkerListener delegate) {
		this.delegate = delegate;
	}

	static WorkerListener of(WorkerListener listener) {
		if (listener == null || listener == NONE) {
			return NONE;
		}
		return (listener instanceof GuardedWorkerListener) ? listener : new GuardedWorkerListener(listener);
	}

	@Override
	public void claimed(int count) {
		try {
			this.delegate.claimed(count);
		}
		catch (Throwable ex) {
			failed("claimed", ex);
		}
	}

	@Override
	public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
		try {
			this.delegate.finished(job, completion, queueWait, execution);
		}
		catch (Throwable ex) {
			failed("finished", ex);
		}
	}

	@Override
	public void interruptIgnored(ClaimedJob job, String reason) {
		try {
			this.delegate.interruptIgnored(job, reason);
		}
		catch (Throwable ex) {
			failed("interruptIgnored", ex);
		}
	}

	@Override
	public void staleCompletion(ClaimedJob job, Completion completion) {
		try {
			this.delegate.staleCompletion(job, completion);
		}
		catch (Throwable ex) {
			failed("staleCompletion", ex);
		}
	}

	@Override
	public void stepDone(ClaimedJob job, String step, boolean replayed) {
		try {
			this.delegate.stepDone(job, step, replayed);
		}
		catch (Throwable ex) {
			failed("stepDone", ex);
		}
	}

	private void failed(String method, Throwable ex) {
		long suppressed = this.throttle.admit(method);
		if (suppressed >= 0) {
			logger.warn("Worker listener {} failed in {}; the worker goes on unchanged{}", this.delegate, method,
					(suppressed > 0) ? " (" + suppressed + " more such failures not logged)" : "", ex);
		}
	}

	@Override
	public String toString() {
		return this.delegate.toString();
	}

}
