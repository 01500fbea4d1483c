package dev.jobqueue.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.jobqueue.FanOut;
import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.JobInvoker;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.WorkerListener;

/**
 * What a fan-out costs per child (issue 15): {@code enqueueFanOut} of N no-op children
 * and one join, burned down by a 2-slot worker, next to N plain no-op jobs enqueued with
 * {@code enqueueAll} and burned down by the same worker in the same run. Each child's
 * completion also decrements the join's count of unfinished dependencies in its
 * transaction, so the difference per child is that update. Checks that the join ran once,
 * after the last child had finished.
 */
final class FanOutScenario {

	/** Worker slots, as in the burn-down row that has a target. */
	private static final int THREADS = 2;

	private final Options options;

	private final ResultTable table;

	private final Backend backend;

	/** On SQLite files in {@code directory}. */
	FanOutScenario(Options options, ResultTable table, Path directory) {
		this(options, table, new SqliteBackend(directory, options.keepFiles));
	}

	FanOutScenario(Options options, ResultTable table, Backend backend) {
		this.options = options;
		this.table = table;
		this.backend = backend;
	}

	/** Where a run's queue lives: a fresh database per run, gone when it is closed. */
	interface Backend {

		/** For the scenario's name, or empty for SQLite (the table's default). */
		String label();

		Node open(String name, JobInvoker handler) throws Exception;

	}

	/** A queue with a worker on demand; closing it drops its database. */
	interface Node extends AutoCloseable {

		JobQueue queue();

		void startWorker(int threads, Duration pollInterval, WorkerListener listener);

		void stopWorker();

		@Override
		void close() throws Exception;

	}

	/** One measured run: enqueue time, time until the last child finished, the join. */
	record Run(long enqueueNanos, long childrenNanos, long joinDelayNanos, int joinRuns, boolean joinAfterLastChild) {
	}

	void run() throws Exception {
		int children = this.options.fanOutChildren;
		Run bestFanOut = null;
		Run bestPlain = null;
		// The run-wide warm-up does not go through the fan-out paths: warm them first.
		int warmUp = Math.max(1, this.options.warmUpJobs);
		plainRun("fan-out-warm-up", warmUp);
		fanOutRun("fan-out-warm-up", warmUp);
		// Alternating, best of --repeat: other programs on the machine only slow a run
		// down.
		for (int round = 0; round < this.options.repeat; round++) {
			Run plain = plainRun("fan-out-plain", children);
			Run fanOut = fanOutRun("fan-out", children);
			bestPlain = (bestPlain == null || plain.childrenNanos() < bestPlain.childrenNanos()) ? plain : bestPlain;
			if (bestFanOut == null || fanOut.childrenNanos() < bestFanOut.childrenNanos()) {
				bestFanOut = fanOut;
			}
			if (fanOut.joinRuns() != 1 || !fanOut.joinAfterLastChild()) {
				// A wrong join is the result, whatever the speed.
				bestFanOut = fanOut;
				break;
			}
		}
		String scenario = "fan-out/fan-in of " + String.format("%,d", children) + " children"
				+ (this.backend.label().isEmpty() ? "" : " (" + this.backend.label() + ")");
		String t = String.valueOf(THREADS);
		this.table.add(new ResultTable.Row(scenario, t, "enqueue, one call (children/s)",
				perSecond(children, bestFanOut.enqueueNanos()), "jobs/s", perSecond(children, bestPlain.enqueueNanos()),
				"enqueueAll of as many plain jobs", (double) bestPlain.enqueueNanos() / bestFanOut.enqueueNanos(), "",
				null));
		this.table.add(new ResultTable.Row(scenario, t, "burn-down, worker start → last child finished",
				perSecond(children, bestFanOut.childrenNanos()), "jobs/s",
				perSecond(children, bestPlain.childrenNanos()), "as many plain no-op jobs",
				(double) bestPlain.childrenNanos() / bestFanOut.childrenNanos(), "", null));
		double perChild = bestFanOut.childrenNanos() / 1e3 / children;
		double perPlain = bestPlain.childrenNanos() / 1e3 / children;
		this.table.add(new ResultTable.Row(scenario, t, "time per child (burn-down)", perChild, "µs/job", perPlain,
				"time per plain job", perChild / perPlain, "", null));
		this.table.add(new ResultTable.Row(scenario, t, "join runs, after the last child finished",
				bestFanOut.joinRuns(), "runs", null, null, null, "1, after the last child",
				bestFanOut.joinRuns() == 1 && bestFanOut.joinAfterLastChild()));
		this.table.add(new ResultTable.Row(scenario, t, "last child finished → join started",
				bestFanOut.joinDelayNanos() / 1e6, "ms", null, null, null, "", null));
	}

	private Run fanOutRun(String name, int children) throws Exception {
		AtomicLong joinId = new AtomicLong(-1);
		AtomicInteger joinRuns = new AtomicInteger();
		AtomicLong joinStarted = new AtomicLong();
		AtomicLong lastChildFinished = new AtomicLong();
		CountDownLatch done = new CountDownLatch(children + 1);
		WorkerListener listener = new WorkerListener() {
			@Override
			public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
				if (job.id() != joinId.get()) {
					lastChildFinished.accumulateAndGet(System.nanoTime(), Math::max);
				}
				done.countDown();
			}
		};
		try (Node node = this.backend.open(name, (payload, context) -> {
			if (context.jobId() == joinId.get()) {
				joinStarted.set(System.nanoTime());
				joinRuns.incrementAndGet();
			}
			return null;
		})) {
			List<JobRequest> requests = requests(children);
			JobRequest join = JobRequest.of(QueueNode.TYPE, new Payload(-1));
			long enqueueStart = System.nanoTime();
			FanOut fanOut = node.queue().enqueueFanOut(requests, join);
			long enqueueNanos = System.nanoTime() - enqueueStart;
			joinId.set(fanOut.joinId());
			long start = System.nanoTime();
			node.startWorker(THREADS, this.options.pollInterval, listener);
			Timing.await(done, "fan-out of " + children + " children and its join");
			node.stopWorker();
			return new Run(enqueueNanos, lastChildFinished.get() - start, joinStarted.get() - lastChildFinished.get(),
					joinRuns.get(), joinAfterLastChild(node.queue().findChain(fanOut.chainId()), fanOut.joinId()));
		}
	}

	/**
	 * What the database says: every child succeeded, the join succeeded with one attempt,
	 * claimed no earlier than the last child finished.
	 */
	private static boolean joinAfterLastChild(List<Job> chain, long joinId) {
		Job join = chain.stream().filter((job) -> job.id() == joinId).findFirst().orElseThrow();
		Instant lastChild = Instant.MIN;
		for (Job job : chain) {
			if (job.id() == joinId) {
				continue;
			}
			if (job.status() != JobStatus.SUCCEEDED) {
				return false;
			}
			lastChild = job.finishedAt().isAfter(lastChild) ? job.finishedAt() : lastChild;
		}
		return join.status() == JobStatus.SUCCEEDED && join.attempts() == 1 && !join.startedAt().isBefore(lastChild);
	}

	private Run plainRun(String name, int jobs) throws Exception {
		AtomicLong lastFinished = new AtomicLong();
		CountDownLatch done = new CountDownLatch(jobs);
		WorkerListener listener = new WorkerListener() {
			@Override
			public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
				lastFinished.accumulateAndGet(System.nanoTime(), Math::max);
				done.countDown();
			}
		};
		try (Node node = this.backend.open(name, (payload, context) -> null)) {
			List<JobRequest> requests = requests(jobs);
			long enqueueStart = System.nanoTime();
			node.queue().enqueueAll(requests);
			long enqueueNanos = System.nanoTime() - enqueueStart;
			long start = System.nanoTime();
			node.startWorker(THREADS, this.options.pollInterval, listener);
			Timing.await(done, "burn-down of " + jobs + " plain jobs");
			node.stopWorker();
			return new Run(enqueueNanos, lastFinished.get() - start, 0, 0, true);
		}
	}

	private static List<JobRequest> requests(int count) {
		List<JobRequest> requests = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			requests.add(JobRequest.of(QueueNode.TYPE, new Payload(i)));
		}
		return requests;
	}

	private static double perSecond(long jobs, long nanos) {
		return jobs / (nanos / 1e9);
	}

	/**
	 * Each run on a new SQLite file, with the queue as {@link QueueNode} assembles it.
	 */
	record SqliteBackend(Path directory, boolean keepFiles) implements Backend {

		@Override
		public String label() {
			return "";
		}

		@Override
		public Node open(String name, JobInvoker handler) {
			Db db = Db.file(this.directory, name, "NORMAL");
			QueueNode node = new QueueNode(db).handle(handler);
			return new Node() {

				@Override
				public JobQueue queue() {
					return node.queue;
				}

				@Override
				public void startWorker(int threads, Duration pollInterval, WorkerListener listener) {
					node.startWorker(threads, false, pollInterval, listener);
				}

				@Override
				public void stopWorker() {
					node.stopWorker();
				}

				@Override
				public void close() {
					node.close();
					db.close();
					if (!SqliteBackend.this.keepFiles) {
						db.delete();
					}
				}

			};
		}

	}

}
