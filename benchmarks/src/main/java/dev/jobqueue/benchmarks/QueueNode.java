package dev.jobqueue.benchmarks;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import tools.jackson.databind.json.JsonMapper;

import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.JobInvoker;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.VirtualThreads;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.worker.DefaultErrorClassifier;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.core.worker.WorkerSettings;
import dev.jobqueue.jackson.JacksonPayloadCodec;
import dev.jobqueue.sqlite.SqliteDatabase;
import dev.jobqueue.sqlite.SqliteJobAdminStore;
import dev.jobqueue.sqlite.SqliteJobStore;
import dev.jobqueue.sqlite.SqliteQueueInsights;

/**
 * The queue as one application process assembles it, without Spring: the queue's own
 * pool, the store, the queue API and (optionally) a worker, with the product's defaults
 * except where a scenario sets them.
 */
final class QueueNode implements AutoCloseable {

	static final String TYPE = "noop";

	static final PayloadCodec CODEC = new JacksonPayloadCodec(JsonMapper.builder().build());

	final HikariDataSource pool;

	final SqliteJobStore store;

	/** The read side on the same pool, for the dashboard scenario. */
	final SqliteQueueInsights insights;

	/** The queue's write transactions so far. */
	final CommitCounter commits = new CommitCounter();

	final HandlerRegistry handlers = new HandlerRegistry();

	final DefaultJobQueue queue;

	final SqliteDatabase database;

	private JobWorker worker;

	QueueNode(Db db) {
		this.pool = db.pool();
		SqliteDatabase database = new SqliteDatabase(this.commits.wrap(this.pool), db.label, Duration.ofSeconds(30));
		this.database = database;
		this.store = new SqliteJobStore(database, Db.TABLES);
		this.insights = new SqliteQueueInsights(database, Db.TABLES);
		this.queue = new DefaultJobQueue(this.store, new SqliteJobAdminStore(database, Db.TABLES), CODEC, this.handlers,
				Clock.systemUTC(), new EnqueueLimits(3, 64 * 1024), null);
	}

	QueueNode handle(JobInvoker invoker) {
		return handle(HandlerDefinition.of(TYPE, invoker));
	}

	/**
	 * Handles the benchmark's type as {@code definition} says (with its flow control).
	 */
	QueueNode handle(HandlerDefinition definition) {
		this.handlers.register(definition);
		return this;
	}

	/**
	 * Starts a worker that the queue of this node wakes on enqueue, as in an application.
	 */
	JobWorker startWorker(int concurrency, boolean virtual, Duration pollInterval, WorkerListener listener) {
		return startWorker(concurrency, virtual, pollInterval, listener,
				new RetryPolicy(Duration.ofSeconds(10), Duration.ofHours(1), Math::random));
	}

	/** Starts a worker as above that retries a failed job as {@code retry} says. */
	JobWorker startWorker(int concurrency, boolean virtual, Duration pollInterval, WorkerListener listener,
			RetryPolicy retry) {
		WorkerSettings settings = new WorkerSettings(WorkerIds.newId(), concurrency, pollInterval,
				Duration.ofSeconds(60), Duration.ofSeconds(5), 3);
		// The product default unless -Djobqueue.benchmark.claim-ahead=N says otherwise
		// (0: off).
		String claimAhead = System.getProperty("jobqueue.benchmark.claim-ahead");
		if (claimAhead != null) {
			settings = settings.withClaimAhead(Integer.parseInt(claimAhead));
		}
		this.worker = new JobWorker(this.store, this.handlers, CODEC, new DefaultErrorClassifier(), retry,
				Clock.systemUTC(), settings, executor(concurrency, virtual), listener, null);
		this.queue.setSignals(this.worker);
		this.worker.start();
		return this.worker;
	}

	void stopWorker() {
		if (this.worker != null) {
			this.worker.stop();
			this.queue.setSignals(null);
			this.worker = null;
		}
	}

	@Override
	public void close() {
		stopWorker();
		this.pool.close();
	}

	/**
	 * Handler threads as the starter makes them: a fixed pool, or a virtual thread per
	 * job on Java 21+.
	 */
	static ExecutorService executor(int concurrency, boolean virtual) {
		if (virtual) {
			return VirtualThreads.perTaskExecutor("jobqueue-vworker-")
				.orElseThrow(() -> new IllegalStateException(
						"Virtual threads need Java 21 or later; this is Java " + Runtime.version().feature()));
		}
		AtomicInteger number = new AtomicInteger();
		ThreadFactory threads = (task) -> {
			Thread thread = new Thread(task, "jobqueue-worker-" + number.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
		return Executors.newFixedThreadPool(concurrency, threads);
	}

}
