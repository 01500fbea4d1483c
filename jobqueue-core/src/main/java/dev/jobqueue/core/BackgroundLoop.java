package dev.jobqueue.core;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;

/**
 * A named daemon thread that runs one step again and again, for the queue's background
 * work (the worker's polling, the scheduler, housekeeping, the metrics snapshot). One
 * place for what every such loop needs:
 *
 * <ul>
 * <li>The step says how long to wait before the next round. A {@link #wakeUp()} ends the
 * wait early (a signal given while no wait runs ends the next one), and so may a
 * {@linkplain #wakeWhen condition} checked now and then during the wait.</li>
 * <li>A step that throws is retried after a backoff that grows with the failures in a row
 * ({@code backoff × n}) up to a cap. The first failure of a run of failures is logged
 * with its stack trace, then every 20th one, then the recovery: a database that is down
 * for an hour writes a few dozen lines, not thousands.</li>
 * <li>{@link #stop(Duration)} lets the current step finish (it is never interrupted by
 * the loop), ends the wait and waits for the thread. An interrupt of the thread ends the
 * loop too.</li>
 * </ul>
 * A loop runs once: start it once, stop it once; make a new one to run again.
 */
public final class BackgroundLoop {

	/** One round of the loop's work. */
	@FunctionalInterface
	public interface Step {

		/**
		 * @return how long to wait before the next round; zero or negative to run again
		 * at once
		 * @throws Exception to be logged and retried after a backoff
		 */
		Duration run() throws Exception;

	}

	/** How many failures in a row pass between two log lines about them. */
	static final int LOG_EVERY = 20;

	private final String threadName;

	private final Step step;

	private final Duration backoff;

	private final Duration maxBackoff;

	private final Logger logger;

	private final String failureMessage;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition signal = this.lock.newCondition();

	private final AtomicLong failures = new AtomicLong();

	private volatile int failuresInARow;

	private volatile Throwable lastFailure;

	private boolean signalled;

	private volatile boolean stopping;

	private volatile Thread thread;

	private BooleanSupplier wakeCondition;

	private long wakeCheckMillis;

	/**
	 * @param threadName the thread's name, as thread dumps show it
	 * @param step the work of one round
	 * @param backoff the wait after the first failure in a row; the {@code n}th waits
	 * {@code n} times as long
	 * @param maxBackoff the longest wait after a failure (at least {@code backoff})
	 * @param logger where failures are logged (the owner's logger, so its category stays
	 * the owner's)
	 * @param failureMessage what failed and what it means, for the log, e.g. "Could not
	 * fire job schedules"
	 */
	public BackgroundLoop(String threadName, Step step, Duration backoff, Duration maxBackoff, Logger logger,
			String failureMessage) {
		this.threadName = Objects.requireNonNull(threadName, "'threadName' must not be null");
		this.step = Objects.requireNonNull(step, "'step' must not be null");
		this.backoff = requirePositive(backoff, "backoff");
		this.maxBackoff = (requirePositive(maxBackoff, "maxBackoff").compareTo(backoff) > 0) ? maxBackoff : backoff;
		this.logger = Objects.requireNonNull(logger, "'logger' must not be null");
		this.failureMessage = Objects.requireNonNull(failureMessage, "'failureMessage' must not be null");
	}

	/**
	 * Lets a wait end early once {@code condition} holds, checked every {@code every}
	 * during waits longer than that (not during a backoff). Call before {@link #start()}.
	 */
	public BackgroundLoop wakeWhen(BooleanSupplier condition, Duration every) {
		this.wakeCondition = Objects.requireNonNull(condition, "'condition' must not be null");
		this.wakeCheckMillis = Math.max(1, requirePositive(every, "every").toMillis());
		return this;
	}

	/** Starts the thread; its first round runs at once. */
	public void start() {
		start(Duration.ZERO);
	}

	/**
	 * Starts the thread; its first round runs after {@code initialDelay} (or a
	 * {@link #wakeUp()}).
	 */
	public synchronized void start(Duration initialDelay) {
		if (this.thread != null) {
			throw new IllegalStateException("Loop " + this.threadName + " was started before");
		}
		Thread loop = new Thread(() -> run(initialDelay.toMillis()), this.threadName);
		// Background work must never keep a JVM from exiting.
		loop.setDaemon(true);
		this.thread = loop;
		loop.start();
	}

	/** Ends the current wait, or the next one if none runs now. */
	public void wakeUp() {
		this.lock.lock();
		try {
			this.signalled = true;
			this.signal.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Ends the loop: the current step finishes, no other starts.
	 * @param timeout how long to wait for the thread to end
	 * @return whether the thread ended (or never started)
	 */
	public boolean stop(Duration timeout) {
		this.stopping = true;
		wakeUp();
		Thread loop = this.thread;
		if (loop == null || loop == Thread.currentThread()) {
			return loop == null;
		}
		try {
			loop.join(Math.max(1, timeout.toMillis()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (loop.isAlive()) {
			this.logger.warn("{} did not end within {} of being asked to stop", this.threadName, timeout);
			return false;
		}
		return true;
	}

	/** Whether the loop was started and is not stopping. */
	public boolean isRunning() {
		Thread loop = this.thread;
		return loop != null && loop.isAlive() && !this.stopping;
	}

	/**
	 * Whether {@link #stop} was called (or the thread was interrupted): a long step may
	 * end early.
	 */
	public boolean isStopping() {
		return this.stopping;
	}

	/** How many rounds failed since start. */
	public long failures() {
		return this.failures.get();
	}

	/**
	 * How many rounds failed since the latest round that worked: 0 while the loop works.
	 */
	public int failuresInARow() {
		return this.failuresInARow;
	}

	/** The error of the latest failed round, or {@code null} while the loop works. */
	public Throwable lastFailure() {
		return (this.failuresInARow > 0) ? this.lastFailure : null;
	}

	private void run(long initialDelayMillis) {
		if (initialDelayMillis > 0) {
			await(initialDelayMillis, false);
		}
		int failuresInARow = 0;
		while (!this.stopping) {
			long waitMillis;
			boolean checkCondition = true;
			try {
				Duration wait = this.step.run();
				if (failuresInARow > 0) {
					this.logger.info("{}: works again after {} failure(s) in a row", this.threadName, failuresInARow);
					failuresInARow = 0;
					this.failuresInARow = 0;
				}
				waitMillis = (wait != null) ? wait.toMillis() : 0;
			}
			catch (Throwable ex) {
				if (ex instanceof InterruptedException) {
					Thread.currentThread().interrupt();
				}
				failuresInARow++;
				this.lastFailure = ex;
				this.failuresInARow = failuresInARow;
				this.failures.incrementAndGet();
				waitMillis = backoffMillis(failuresInARow);
				checkCondition = false;
				if (failuresInARow == 1 || failuresInARow % LOG_EVERY == 0) {
					this.logger.error("{} (failure {} in a row, next try in {} ms): {}", this.failureMessage,
							failuresInARow, waitMillis, ex.toString(), (failuresInARow == 1) ? ex : null);
				}
			}
			if (Thread.currentThread().isInterrupted()) {
				this.stopping = true;
			}
			else if (waitMillis > 0) {
				await(waitMillis, checkCondition);
			}
		}
	}

	long backoffMillis(int failuresInARow) {
		long step = this.backoff.toMillis();
		long cap = this.maxBackoff.toMillis();
		return (failuresInARow > cap / Math.max(1, step)) ? cap : Math.min(cap, step * failuresInARow);
	}

	/**
	 * Waits, checking the wake-up condition now and then if asked to; an interrupt stops
	 * the loop.
	 */
	private void await(long millis, boolean checkCondition) {
		BooleanSupplier condition = checkCondition ? this.wakeCondition : null;
		if (condition == null || millis <= this.wakeCheckMillis) {
			awaitSignal(millis);
			return;
		}
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
		while (!this.stopping) {
			long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
			if (left <= 0 || awaitSignal(Math.min(left, this.wakeCheckMillis)) || condition.getAsBoolean()) {
				return;
			}
		}
	}

	/**
	 * @return whether a signal (or a stop) ended the wait
	 */
	private boolean awaitSignal(long millis) {
		this.lock.lock();
		try {
			if (!this.signalled && !this.stopping) {
				this.signal.await(millis, TimeUnit.MILLISECONDS);
			}
			boolean woken = this.signalled || this.stopping;
			this.signalled = false;
			return woken;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.stopping = true;
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	private static Duration requirePositive(Duration value, String name) {
		Objects.requireNonNull(value, () -> "'" + name + "' must not be null");
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException("'" + name + "' must be positive, got " + value);
		}
		return value;
	}

}
