package dev.jobqueue.testing;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;

import tools.jackson.databind.json.JsonMapper;

import dev.jobqueue.core.CallerThreadExecutor;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.worker.DefaultErrorClassifier;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.RunInterceptor;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.core.worker.WorkerSettings;
import dev.jobqueue.jackson.JacksonPayloadCodec;

/**
 * A queue and a worker on a test database, with a clock the test moves, or (for worker
 * processes and load tests) on the system clock: {@link #onSystemClock}.
 */
public final class WorkerHarness {

	public static final PayloadCodec CODEC = new JacksonPayloadCodec(JsonMapper.builder().build());

	public final StoreFixture db;

	/**
	 * The clock the test moves; {@code null} {@link #onSystemClock on the system clock}.
	 */
	public final MutableClock clock;

	private final Clock runClock;

	private Ticker ticker;

	/** {@code null}: the fixture's store. */
	private JobStore workerStore;

	/** {@code null}: the worker's own defaults. */
	private EnqueueLimits workerLimits = new EnqueueLimits(3, 64 * 1024);

	public final HandlerRegistry handlers = new HandlerRegistry();

	public final DefaultJobQueue queue;

	private Duration lease = Duration.ofSeconds(30);

	private int concurrency = 4;

	private int maxSnoozes = 3;

	private Duration cancelTimeout = Duration.ofSeconds(10);

	private WorkerListener listener = WorkerListener.NONE;

	private RunInterceptor interceptor;

	private Duration shutdownTimeout = Duration.ofSeconds(5);

	/** {@code null}: the default for the concurrency. */
	private Integer claimAhead;

	private Duration pollInterval = Duration.ofMillis(50);

	private RetryPolicy retry = new RetryPolicy(Duration.ofSeconds(10), Duration.ofMinutes(10), () -> 0.5);

	public WorkerHarness(StoreFixture db, MutableClock clock) {
		this(db, clock, clock, clock.ticker());
	}

	private WorkerHarness(StoreFixture db, MutableClock clock, Clock runClock, Ticker ticker) {
		this.db = db;
		this.clock = clock;
		this.runClock = runClock;
		this.ticker = ticker;
		this.queue = new DefaultJobQueue(db.store(), db.admin(), CODEC, this.handlers, runClock,
				new EnqueueLimits(3, 64 * 1024), null);
	}

	/**
	 * A queue and worker on the system clock and ticker, retrying after 10-100 ms (time
	 * passes by itself: for worker processes and tests under load).
	 */
	public static WorkerHarness onSystemClock(StoreFixture db) {
		return new WorkerHarness(db, null, Clock.systemUTC(), Ticker.SYSTEM)
			.retry(new RetryPolicy(Duration.ofMillis(10), Duration.ofMillis(100), Math::random));
	}

	/**
	 * A queue and worker on a clock the test steps by its own means (not a
	 * {@link MutableClock}), timing waits on the system ticker.
	 */
	public static WorkerHarness onClock(StoreFixture db, Clock clock) {
		return new WorkerHarness(db, null, clock, Ticker.SYSTEM);
	}

	public WorkerHarness handle(HandlerDefinition handler) {
		this.handlers.register(handler);
		return this;
	}

	public WorkerHarness lease(Duration lease) {
		this.lease = lease;
		return this;
	}

	public WorkerHarness concurrency(int concurrency) {
		this.concurrency = concurrency;
		return this;
	}

	public WorkerHarness maxSnoozes(int maxSnoozes) {
		this.maxSnoozes = maxSnoozes;
		return this;
	}

	public WorkerHarness cancelTimeout(Duration cancelTimeout) {
		this.cancelTimeout = cancelTimeout;
		return this;
	}

	public WorkerHarness shutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
		return this;
	}

	public WorkerHarness claimAhead(int claimAhead) {
		this.claimAhead = claimAhead;
		return this;
	}

	public WorkerHarness pollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
		return this;
	}

	public WorkerHarness retry(RetryPolicy retry) {
		this.retry = retry;
		return this;
	}

	public WorkerHarness interceptor(RunInterceptor interceptor) {
		this.interceptor = interceptor;
		return this;
	}

	public WorkerHarness listener(WorkerListener listener) {
		this.listener = listener;
		return this;
	}

	/**
	 * Times the worker's waits (poll interval, heartbeats) on {@code ticker} instead of
	 * the harness's clock.
	 */
	public WorkerHarness ticker(Ticker ticker) {
		this.ticker = ticker;
		return this;
	}

	/**
	 * Lets workers claim and complete through {@code store} (another connection pool, or
	 * a wrapper that counts or injects failures) while the queue keeps the fixture's.
	 */
	public WorkerHarness workerStore(JobStore store) {
		this.workerStore = store;
		return this;
	}

	/**
	 * Leaves workers their own enqueue limits (default attempts and result size) instead
	 * of the harness queue's.
	 */
	public WorkerHarness workerDefaultLimits() {
		this.workerLimits = null;
		return this;
	}

	/**
	 * A worker that runs jobs on the polling thread: pollOnce() returns when they are
	 * done.
	 */
	public JobWorker directWorker(String workerId) {
		return worker(workerId, new CallerThreadExecutor());
	}

	public JobWorker worker(String workerId, ExecutorService executor) {
		WorkerSettings settings = new WorkerSettings(workerId, this.concurrency, this.pollInterval, this.lease,
				this.shutdownTimeout, this.maxSnoozes, this.cancelTimeout);
		if (this.claimAhead != null) {
			settings = settings.withClaimAhead(this.claimAhead);
		}
		JobStore store = (this.workerStore != null) ? this.workerStore : this.db.store();
		JobWorker worker = new JobWorker(store, this.handlers, CODEC, new DefaultErrorClassifier(), this.retry,
				this.runClock, settings, executor, this.listener, this.interceptor, this.ticker);
		if (this.workerLimits != null) {
			worker.setEnqueueLimits(this.workerLimits);
		}
		return worker;
	}

}
