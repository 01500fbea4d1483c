package dev.jobqueue.benchmarks;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntConsumer;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.WorkerListener;

/**
 * Issue 25's benchmark rows: what flow control costs and whether a rate limit holds, in
 * one run and one table, through the starter (a Spring Boot application whose
 * {@code @JobHandler} beans carry the attributes, {@link FlowHandlers}) and the bare
 * engine (the same limits on the handler's definition), as {@code --stacks} says.
 * <ul>
 * <li><b>Burn-down over keys</b>: {@code --flow-jobs} no-op jobs enqueued with
 * round-robin keys ({@code --flow-keys}), then a worker of {@code --flow-threads} slots
 * until the last outcome; without limits (the baseline), with {@code keyConcurrency = 1}
 * (the ratio: at least 0.5 × the baseline), with {@code ordered = true}, and the
 * same jobs without keys for context. Variants run round by round, {@code --repeat}
 * rounds, the best of each counts.</li>
 * <li><b>Rate limit</b>: {@code rateLimit = "N/1s"} ({@code --rate-per-second}) with a
 * backlog of {@code --rate-backlog} due jobs enqueued before the worker starts, watched
 * for {@code --rate-seconds} from the first start: starts per second from the handler's
 * own start times, the most starts in any 1 s (sliding, the handler's times and the claim
 * times the database recorded), the fewest and most in each whole second.</li>
 * </ul>
 * Each run gets a database of its own.
 */
final class FlowScenario {

	/** The rows' stacks: the starter as users run it, and the bare engine. */
	static final List<String> STACKS = List.of("starter", "engine");

	/** Requests per {@code enqueueAll} call when the jobs go in before a run. */
	private static final int ENQUEUE_BATCH = 1_000;

	private final Options options;

	private final List<String> stacks;

	private final ResultTable table;

	private final Backend backend;

	/** On SQLite files in {@code directory}. */
	FlowScenario(Options options, ResultTable table, Path directory) {
		this(options, options.stacks, table, new SqliteBackend(directory, options));
	}

	/**
	 * @param stacks which of {@link #STACKS} to measure (others named are left out)
	 */
	FlowScenario(Options options, List<String> stacks, ResultTable table, Backend backend) {
		this.options = options;
		this.stacks = STACKS.stream().filter(stacks::contains).toList();
		this.table = table;
		this.backend = backend;
	}

	/** Where a run's queue lives: a fresh database per run, gone when it is closed. */
	interface Backend {

		/** For the scenario's name, or empty for SQLite (the table's default). */
		String label();

		/**
		 * A queue of {@code stack} whose handler of the benchmark's type has
		 * {@code limits} and calls {@code started} with each payload's number as its
		 * first line; its worker of {@code threads} slots reports to {@code listener}
		 * once started.
		 */
		Node open(String name, String stack, FlowHandlers.Limits limits, int perSecond, int threads,
				IntConsumer started, WorkerListener listener) throws Exception;

	}

	/** One run's queue; closing it drops its database. */
	interface Node extends AutoCloseable {

		JobQueue queue();

		void startWorker();

		/**
		 * Every attempt's start as the claim recorded it in the database, in microseconds
		 * since the epoch.
		 */
		long[] claimTimesMicros() throws SQLException;

	}

	/** The burn-down variants, in the order each round runs them. */
	enum BurnDown {

		NO_KEYS(false, FlowHandlers.Limits.NONE), KEYS(true, FlowHandlers.Limits.NONE),
		KEY_CONCURRENCY_1(true, FlowHandlers.Limits.KEY_CONCURRENCY_1), ORDERED(true, FlowHandlers.Limits.ORDERED);

		final boolean keyed;

		final FlowHandlers.Limits limits;

		BurnDown(boolean keyed, FlowHandlers.Limits limits) {
			this.keyed = keyed;
			this.limits = limits;
		}

	}

	/**
	 * One burn-down: jobs/s, and how many starts came before an earlier job of the key.
	 */
	record BurnDownRun(double jobsPerSecond, int outOfOrder) {
	}

	void run() throws Exception {
		warmUp();
		Map<String, Map<BurnDown, BurnDownRun>> best = new LinkedHashMap<>();
		for (int round = 0; round < this.options.repeat; round++) {
			// Round by round, every variant of every stack once per round: a slow phase
			// of the machine hits them alike.
			for (String stack : this.stacks) {
				Map<BurnDown, BurnDownRun> runs = best.computeIfAbsent(stack, (s) -> new EnumMap<>(BurnDown.class));
				for (BurnDown variant : BurnDown.values()) {
					BurnDownRun run = burnDown("flow-" + variant.name().toLowerCase(Locale.ROOT), stack, variant,
							this.options.flowJobs, this.options.flowKeys);
					runs.merge(variant, run, (a, b) -> (a.jobsPerSecond() >= b.jobsPerSecond()) ? a : b);
				}
			}
		}
		best.forEach(this::burnDownRows);
		for (String stack : this.stacks) {
			rateLimitRows(stack, rateRun(stack));
		}
	}

	/**
	 * Each burn-down of each stack once with small sizes, so measured runs are compiled.
	 */
	private void warmUp() throws Exception {
		int jobs = Math.max(1, this.options.warmUpJobs);
		for (String stack : this.stacks) {
			for (BurnDown variant : BurnDown.values()) {
				burnDown("flow-warm-up", stack, variant, jobs, Math.max(1, Math.min(this.options.flowKeys, jobs / 3)));
			}
		}
	}

	private BurnDownRun burnDown(String name, String stack, BurnDown variant, int jobs, int keys) throws Exception {
		CountDownLatch done = new CountDownLatch(jobs);
		AtomicIntegerArray lastStarted = new AtomicIntegerArray(Math.max(1, keys));
		AtomicInteger outOfOrder = new AtomicInteger();
		IntConsumer started = (n) -> {
			if (variant.keyed) {
				// Job n is the (n / keys)-th of its key in enqueue order.
				int rank = n / keys;
				if (lastStarted.getAndAccumulate(n % keys, rank + 1, Math::max) > rank + 1) {
					outOfOrder.incrementAndGet();
				}
			}
		};
		WorkerListener listener = new WorkerListener() {
			@Override
			public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
				done.countDown();
			}
		};
		try (Node node = this.backend.open(name, stack, variant.limits, this.options.ratePerSecond,
				this.options.flowThreads, started, listener)) {
			enqueue(node.queue(), jobs, variant.keyed ? keys : 0);
			long start = System.nanoTime();
			node.startWorker();
			Timing.await(done, stack + " burn-down of " + jobs + " jobs (" + variant + ")");
			return new BurnDownRun(Timing.jobsPerSecond(jobs, System.nanoTime() - start), outOfOrder.get());
		}
	}

	/**
	 * Jobs numbered 0 to {@code jobs - 1}, job n with key {@code n % keys} (none when
	 * {@code keys} is 0): round-robin, so each key's jobs are spread over the backlog.
	 */
	static void enqueue(JobQueue queue, int jobs, int keys) {
		List<JobRequest> batch = new ArrayList<>(ENQUEUE_BATCH);
		for (int n = 0; n < jobs; n++) {
			JobRequest request = JobRequest.of(QueueNode.TYPE, new Payload(n));
			batch.add((keys > 0) ? request.key("key-" + (n % keys)) : request);
			if (batch.size() == ENQUEUE_BATCH || n == jobs - 1) {
				queue.enqueueAll(batch);
				batch.clear();
			}
		}
	}

	private void burnDownRows(String stack, Map<BurnDown, BurnDownRun> runs) {
		String scenario = "flow: burn-down of " + String.format("%,d", this.options.flowJobs) + " over "
				+ String.format("%,d", this.options.flowKeys) + " keys (" + stackLabel(stack) + ")";
		String threads = String.valueOf(this.options.flowThreads);
		double noKeys = runs.get(BurnDown.NO_KEYS).jobsPerSecond();
		double keys = runs.get(BurnDown.KEYS).jobsPerSecond();
		double keyConcurrency = runs.get(BurnDown.KEY_CONCURRENCY_1).jobsPerSecond();
		double ordered = runs.get(BurnDown.ORDERED).jobsPerSecond();
		String baseline = "keys, no limits, same run";
		this.table.add(new ResultTable.Row(scenario, threads, "no keys, no limits (the plain burn-down, for context)",
				noKeys, "jobs/s", null, null, null, "", null));
		this.table.add(new ResultTable.Row(scenario, threads, "keys, no limits (the baseline)", keys, "jobs/s", noKeys,
				"no keys, same run", keys / noKeys, "", null));
		this.table.add(new ResultTable.Row(scenario, threads, "keyConcurrency = 1", keyConcurrency, "jobs/s", keys,
				baseline, keyConcurrency / keys, "≥ 0.50 × baseline", keyConcurrency / keys >= 0.5));
		this.table.add(new ResultTable.Row(scenario, threads, "ordered = true", ordered, "jobs/s", keys, baseline,
				ordered / keys, "", null));
		this.table.add(new ResultTable.Row(scenario, threads,
				"ordered = true: starts before an earlier job of the key (handlers' view)",
				runs.get(BurnDown.ORDERED).outOfOrder(), "starts", null, null, null, "0",
				runs.get(BurnDown.ORDERED).outOfOrder() == 0));
	}

	// ---- rate limit
	// ----------------------------------------------------------------------------------------

	/** What one rate-limited run saw. */
	record RateRun(long[] handlerStartNanos, long firstStartNanos, long[] claimTimesMicros, int dueAtEnd) {
	}

	private RateRun rateRun(String stack) throws Exception {
		int backlog = this.options.rateBacklog;
		long windowNanos = this.options.rateDuration.toNanos();
		AtomicLongArray starts = new AtomicLongArray(backlog);
		AtomicInteger started = new AtomicInteger();
		IntConsumer handler = (n) -> {
			starts.set(n, System.nanoTime());
			started.incrementAndGet();
		};
		try (Node node = this.backend.open("flow-rate", stack, FlowHandlers.Limits.RATE_LIMIT,
				this.options.ratePerSecond, this.options.flowThreads, handler, WorkerListener.NONE)) {
			enqueue(node.queue(), backlog, 0);
			node.startWorker();
			long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
			while (started.get() == 0) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("No job of the rate-limited " + stack + " run started in 2 min");
				}
				Timing.sleep(5);
			}
			long first = Long.MAX_VALUE;
			for (int n = 0; n < backlog; n++) {
				long at = starts.get(n);
				first = (at != 0) ? Math.min(first, at) : first;
			}
			long end = first + windowNanos;
			Timing.sleep(Math.max(0, (end - System.nanoTime()) / 1_000_000 + 1));
			int dueAtEnd = backlog - started.get();
			long[] handlerStarts = new long[backlog];
			int count = 0;
			for (int n = 0; n < backlog; n++) {
				long at = starts.get(n);
				if (at != 0) {
					handlerStarts[count++] = at;
				}
			}
			long[] sorted = Arrays.copyOf(handlerStarts, count);
			Arrays.sort(sorted);
			long[] claimTimes = node.claimTimesMicros();
			Arrays.sort(claimTimes);
			return new RateRun(sorted, first, claimTimes, dueAtEnd);
		}
	}

	private void rateLimitRows(String stack, RateRun run) {
		int limit = this.options.ratePerSecond;
		long seconds = this.options.rateDuration.toSeconds();
		String scenario = "flow: rateLimit = \"" + String.format("%,d", limit) + "/1s\", backlog of "
				+ String.format("%,d", this.options.rateBacklog) + " due, " + seconds + " s (" + stackLabel(stack)
				+ ")";
		String threads = String.valueOf(this.options.flowThreads);
		long second = 1_000_000_000L;
		long[] perSecond = new long[(int) seconds];
		long inWindow = 0;
		for (long at : run.handlerStartNanos()) {
			long offset = at - run.firstStartNanos();
			if (offset < seconds * second) {
				perSecond[(int) (offset / second)]++;
				inWindow++;
			}
		}
		double achieved = inWindow / (double) seconds;
		double deviation = 100.0 * (achieved - limit) / limit;
		String theLimit = "the limit";
		this.table.add(new ResultTable.Row(scenario, threads,
				"starts per second over the " + seconds + " s (handlers' start times)", achieved, "starts/s",
				(double) limit, theLimit, achieved / limit, "", null));
		this.table.add(new ResultTable.Row(scenario, threads, "deviation from the limit", deviation, "%", null, null,
				null, "within ±5 %", Math.abs(deviation) <= 5.0));
		// For context, no target: the limit counts claims, and each handler starts a few
		// milliseconds after its claim, by a delay that varies, so a window of handler
		// times can hold a few more than one of claim times.
		long handlerMost = mostInAnyWindow(run.handlerStartNanos(), second);
		this.table.add(new ResultTable.Row(scenario, threads, "most starts in any 1 s, sliding (handlers' start times)",
				handlerMost, "starts", (double) limit, theLimit, handlerMost / (double) limit, "", null));
		long claimMost = mostInAnyWindow(run.claimTimesMicros(), 1_000_000L);
		this.table.add(new ResultTable.Row(scenario, threads,
				"most starts in any 1 s, sliding (claim times the database recorded)", claimMost, "starts",
				(double) limit, theLimit, claimMost / (double) limit, "≤ " + String.format("%,d", limit),
				claimMost <= limit));
		long fewest = Arrays.stream(perSecond).min().orElse(0);
		long most = Arrays.stream(perSecond).max().orElse(0);
		this.table.add(new ResultTable.Row(scenario, threads, "starts in each whole second from the first, fewest",
				fewest, "starts", (double) limit, theLimit, fewest / (double) limit, "", null));
		this.table.add(new ResultTable.Row(scenario, threads, "starts in each whole second from the first, most", most,
				"starts", (double) limit, theLimit, most / (double) limit, "", null));
		this.table.add(new ResultTable.Row(scenario, threads, "due jobs left when the " + seconds + " s ended",
				run.dueAtEnd(), "jobs", null, null, null, "> 0 (the backlog lasted)", run.dueAtEnd() > 0));
	}

	/**
	 * The most of the sorted times that fall in any half-open span
	 * {@code [t, t + width)}.
	 */
	static long mostInAnyWindow(long[] sorted, long width) {
		long most = 0;
		int first = 0;
		for (int last = 0; last < sorted.length; last++) {
			while (sorted[last] - sorted[first] >= width) {
				first++;
			}
			most = Math.max(most, last - first + 1);
		}
		return most;
	}

	private String stackLabel(String stack) {
		String label = stack.equals("starter") ? "starter, @JobHandler attributes" : "bare engine";
		return this.backend.label().isEmpty() ? label : this.backend.label() + ", " + label;
	}

	/** Each run on a new SQLite file. */
	record SqliteBackend(Path directory, Options options) implements Backend {

		@Override
		public String label() {
			return "";
		}

		@Override
		public Node open(String name, String stack, FlowHandlers.Limits limits, int perSecond, int threads,
				IntConsumer started, WorkerListener listener) {
			Db db = Db.file(this.directory, name, "NORMAL");
			Duration poll = this.options.pollInterval;
			try {
				if (stack.equals("starter")) {
					StarterNode node = new StarterNode(db, limits.bean, limits.properties(perSecond), threads, poll,
							(payload, context) -> started.accept(payload.n()), listener);
					return new SqliteNode(db, node.queue, node::startWorker, node, this.options.keepFiles);
				}
				QueueNode node = new QueueNode(db).handle(limits.definition(perSecond, (payload, context) -> {
					started.accept(((Payload) QueueNode.CODEC.fromJson(payload, Payload.class)).n());
					return null;
				}));
				return new SqliteNode(db, node.queue, () -> node.startWorker(threads, false, poll, listener), node,
						this.options.keepFiles);
			}
			catch (RuntimeException ex) {
				db.close();
				if (!this.options.keepFiles) {
					db.delete();
				}
				throw ex;
			}
		}

	}

	private record SqliteNode(Db db, JobQueue queue, Runnable start, AutoCloseable stack,
			boolean keepFiles) implements Node {

		@Override
		public void startWorker() {
			this.start.run();
		}

		@Override
		public long[] claimTimesMicros() throws SQLException {
			try (Connection connection = this.db.connect();
					Statement statement = connection.createStatement();
					ResultSet rows = statement.executeQuery("SELECT started_at FROM job_attempts")) {
				List<Long> micros = new ArrayList<>();
				while (rows.next()) {
					// Milliseconds since the epoch in the SQLite schema.
					micros.add(rows.getLong(1) * 1_000);
				}
				return micros.stream().mapToLong(Long::longValue).toArray();
			}
		}

		@Override
		public void close() throws Exception {
			try {
				this.stack.close();
			}
			finally {
				this.db.close();
				if (!this.keepFiles) {
					this.db.delete();
				}
			}
		}

	}

}
