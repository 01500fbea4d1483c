package dev.jobqueue.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a benchmark run does, from the command line. The full run and the smoke run share
 * all code; only the sizes differ ({@code --quick} picks tiny ones, every size can be set
 * on its own).
 */
final class Options {

	static final List<String> SCENARIOS = List.of("enqueue", "enqueue-all", "burn-down", "latency", "big-table", "idle",
			"heap", "durability", "dashboard", "fan-out", "steps", "flow");

	final boolean quick;

	final Set<String> scenarios;

	final List<Integer> workerThreads;

	final List<Integer> enqueueThreads;

	final List<String> executors;

	/** Pending jobs of one burn-down. */
	final int jobs;

	/** Jobs of one single-enqueue measurement (all threads together). */
	final int enqueueJobs;

	/** Calls of enqueueAll in one measurement. */
	final int enqueueAllCalls;

	final int enqueueAllSize;

	/** Jobs per claim transaction of the raw batched lifecycle. */
	final int rawBatch;

	final int latencyRate;

	final Duration latencyDuration;

	final Duration pollInterval;

	final int bigFinished;

	final Duration idleDuration;

	final int heapJobs;

	final int durabilityJobs;

	/**
	 * Runs of each short measurement (raw baselines, enqueue); the best counts. Other
	 * programs on the machine only ever slow a run down, so the best of a few is the
	 * least disturbed one.
	 */
	final int repeat;

	/** Children of the fan-out scenario's enqueueFanOut (and plain jobs next to it). */
	final int fanOutChildren;

	/** Jobs of each burn-down of the flow control rows (issue 25). */
	final int flowJobs;

	/** Keys the flow burn-down's jobs are spread over, round-robin. */
	final int flowKeys;

	/** Worker slots of the flow control rows. */
	final int flowThreads;

	/** The rate limit of the flow control rows, starts per second. */
	final int ratePerSecond;

	/** How long the rate-limited run is watched, from its first start. */
	final Duration rateDuration;

	/** Due jobs enqueued before the rate-limited worker starts. */
	final int rateBacklog;

	/** Jobs of each warm-up run, before anything is measured. */
	final int warmUpJobs;

	final Path directory;

	/**
	 * Extra driver settings for every file URL, for experiments (e.g.
	 * wal_autocheckpoint=0).
	 */
	final String urlParameters;

	final boolean keepFiles;

	/**
	 * Which assemblies of the queue the enqueue, burn-down and latency scenarios measure:
	 * the bare engine ({@link QueueNode}), the starter in a Spring Boot application
	 * ({@link StarterNode}), or both side by side.
	 */
	final List<String> stacks;

	private Options(Args args) {
		this.quick = args.flag("quick");
		boolean q = this.quick;
		String selected = args.value("scenario", "all");
		this.scenarios = selected.equals("all") ? new LinkedHashSet<>(SCENARIOS) : parseScenarios(selected);
		this.workerThreads = args.ints("threads", q ? List.of(1, 2) : List.of(1, 2, 8));
		this.enqueueThreads = args.ints("enqueue-threads", List.of(1, 4));
		this.executors = parseExecutors(args.value("executors", defaultExecutors()));
		this.jobs = args.integer("jobs", q ? 2_000 : 100_000);
		this.enqueueJobs = args.integer("enqueue-jobs", q ? 400 : 20_000);
		this.enqueueAllCalls = args.integer("enqueue-all-calls", q ? 3 : 50);
		this.enqueueAllSize = args.integer("enqueue-all-size", 1_000);
		this.rawBatch = args.integer("raw-batch", 100);
		this.latencyRate = args.integer("latency-rate", 200);
		this.latencyDuration = args.duration("latency-seconds", q ? 1 : 10);
		this.pollInterval = Duration.ofMillis(args.integer("poll-interval-ms", 1_000));
		this.bigFinished = args.integer("big-finished", q ? 5_000 : 1_000_000);
		this.idleDuration = args.duration("idle-seconds", q ? 2 : 60);
		this.heapJobs = args.integer("heap-jobs", q ? 5_000 : 1_000_000);
		this.durabilityJobs = args.integer("durability-jobs", q ? 500 : 20_000);
		this.repeat = Math.max(1, args.integer("repeat", q ? 1 : 3));
		this.warmUpJobs = args.integer("warm-up-jobs", q ? 300 : 3_000);
		this.fanOutChildren = args.integer("fan-out-children", q ? 500 : 10_000);
		this.flowJobs = positive(args, "flow-jobs", q ? 2_000 : 100_000);
		this.flowKeys = positive(args, "flow-keys", q ? 100 : 1_000);
		this.flowThreads = positive(args, "flow-threads", 8);
		this.ratePerSecond = positive(args, "rate-per-second", 1_000);
		this.rateDuration = Duration.ofSeconds(positive(args, "rate-seconds", q ? 2 : 60));
		this.rateBacklog = positive(args, "rate-backlog", q ? 5_000 : 70_000);
		this.directory = Path.of(args.value("dir", System.getProperty("java.io.tmpdir")));
		this.keepFiles = args.flag("keep-files");
		this.stacks = parseStacks(args.value("stacks", "engine,starter,starter-shared"),
				List.of("engine", "starter", "starter-shared"));
		this.urlParameters = args.value("sqlite-url-params", "");
		Db.urlParameters = this.urlParameters;
		args.requireAllUsed();
	}

	private static int positive(Args args, String name, int fallback) {
		int value = args.integer(name, fallback);
		if (value <= 0) {
			throw new IllegalArgumentException("--" + name + " must be 1 or more, got " + value);
		}
		return value;
	}

	static Options parse(String... arguments) {
		return new Options(new Args(arguments));
	}

	/**
	 * The stacks named in {@code value}, separated by commas, each one of {@code known}.
	 */
	static List<String> parseStacks(String value, List<String> known) {
		List<String> stacks = new ArrayList<>();
		for (String stack : value.split(",")) {
			String name = stack.strip();
			if (!known.contains(name)) {
				throw new IllegalArgumentException(
						"Unknown stack '" + name + "': use one or more of " + String.join(", ", known));
			}
			stacks.add(name);
		}
		return List.copyOf(stacks);
	}

	boolean stack(String name) {
		return this.stacks.contains(name);
	}

	boolean runs(String scenario) {
		return this.scenarios.contains(scenario);
	}

	static boolean virtualThreadsAvailable() {
		return Runtime.version().feature() >= 21;
	}

	private static String defaultExecutors() {
		return virtualThreadsAvailable() ? "platform,virtual" : "platform";
	}

	private static Set<String> parseScenarios(String value) {
		Set<String> scenarios = new LinkedHashSet<>();
		for (String name : value.split(",")) {
			String scenario = name.trim().toLowerCase(Locale.ROOT);
			if (!SCENARIOS.contains(scenario)) {
				throw new IllegalArgumentException("Unknown scenario '" + name + "': use one or more of " + SCENARIOS
						+ " separated by commas, or 'all'");
			}
			scenarios.add(scenario);
		}
		return scenarios;
	}

	private static List<String> parseExecutors(String value) {
		List<String> executors = new ArrayList<>();
		for (String name : value.split(",")) {
			String executor = name.trim().toLowerCase(Locale.ROOT);
			if (!executor.equals("platform") && !executor.equals("virtual")) {
				throw new IllegalArgumentException("Unknown executor '" + name + "': use platform, virtual or both");
			}
			if (executor.equals("virtual") && !virtualThreadsAvailable()) {
				throw new IllegalArgumentException("--executors=virtual needs Java 21 or later; this is Java "
						+ Runtime.version().feature() + ". Run the jar with a newer JDK or use --executors=platform");
			}
			executors.add(executor);
		}
		return executors;
	}

	static String usage() {
		return """
				Usage: java -jar benchmarks/target/benchmarks.jar [options]
				  --quick                   tiny sizes (smoke run, seconds)
				  --scenario=a,b            one or more of %s (default: all)
				  --threads=1,2,8           worker threads of burn-down and latency runs
				  --enqueue-threads=1,4     caller threads of the single-enqueue runs
				  --executors=platform,virtual   handler threads (virtual needs Java 21+; default: both when available)
				  --jobs=N                  pending jobs of a burn-down (100000)
				  --enqueue-jobs=N          jobs of a single-enqueue run (20000)
				  --enqueue-all-calls=N     enqueueAll calls of 1000 jobs each (50)
				  --raw-batch=N             jobs per claim transaction of the raw batched lifecycle (100)
				  --latency-rate=N          jobs per second of the latency runs (200)
				  --latency-seconds=N       length of one latency run (10)
				  --poll-interval-ms=N      worker poll interval (1000, the product default)
				  --big-finished=N          finished jobs already in the table of the big-table run (1000000)
				  --idle-seconds=N          length of the idle CPU measurement (60)
				  --heap-jobs=N             pending jobs of the heap measurement (1000000)
				  --durability-jobs=N       jobs per durability measurement (20000)
				  --repeat=N                runs of each raw baseline and enqueue measurement, best counts (3)
				  --warm-up-jobs=N          jobs of each warm-up run before measuring (3000)
				  --fan-out-children=N      children of the fan-out run, and plain jobs next to it (10000)
				  --flow-jobs=N             jobs of each flow control burn-down (100000)
				  --flow-keys=N             keys the flow burn-down's jobs are spread over, round-robin (1000)
				  --flow-threads=N          worker slots of the flow control rows (8)
				  --rate-per-second=N       the flow rows' rate limit, N/1s (1000)
				  --rate-seconds=N          how long the rate-limited run is watched (60)
				  --rate-backlog=N          due jobs enqueued before the rate-limited worker starts (70000)
				  --dir=PATH                where the database files go (java.io.tmpdir)
				  --sqlite-url-params=K=V&..  extra sqlite-jdbc settings on every file URL, for experiments
				  --keep-files              keep the database files after the run
				  --stacks=engine,starter,starter-shared   the bare engine; the starter in a Spring Boot application
				                            with the queue's own pool; the starter sharing the application's DataSource
				""".formatted(SCENARIOS);
	}

	/** Minimal {@code --name=value} parsing that rejects what it does not know. */
	static final class Args {

		private final java.util.Map<String, String> values = new java.util.LinkedHashMap<>();

		private final Set<String> used = new java.util.HashSet<>();

		Args(String... arguments) {
			for (String argument : arguments) {
				if (!argument.startsWith("--")) {
					throw new IllegalArgumentException("Unexpected argument '" + argument + "'\n" + usage());
				}
				int equals = argument.indexOf('=');
				String name = (equals < 0) ? argument.substring(2) : argument.substring(2, equals);
				this.values.put(name, (equals < 0) ? "true" : argument.substring(equals + 1));
			}
		}

		boolean flag(String name) {
			this.used.add(name);
			return Boolean.parseBoolean(this.values.getOrDefault(name, "false"));
		}

		String value(String name, String fallback) {
			this.used.add(name);
			return this.values.getOrDefault(name, fallback);
		}

		int integer(String name, int fallback) {
			String value = value(name, null);
			if (value == null) {
				return fallback;
			}
			try {
				return Integer.parseInt(value.replace("_", "").replace(",", ""));
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException("--" + name + " must be a whole number, got '" + value + "'");
			}
		}

		Duration duration(String name, int fallbackSeconds) {
			return Duration.ofSeconds(integer(name, fallbackSeconds));
		}

		List<Integer> ints(String name, List<Integer> fallback) {
			String value = value(name, null);
			if (value == null) {
				return fallback;
			}
			try {
				return Arrays.stream(value.split(",")).map(String::trim).map(Integer::parseInt).toList();
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException(
						"--" + name + " takes whole numbers separated by commas, got '" + value + "'");
			}
		}

		void requireAllUsed() {
			for (String name : this.values.keySet()) {
				if (!this.used.contains(name)) {
					throw new IllegalArgumentException("Unknown option --" + name + "\n" + usage());
				}
			}
		}

	}

}
