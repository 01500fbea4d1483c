package dev.jobqueue.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Runs the benchmark scenarios and prints one Markdown table: every figure of the queue
 * next to a raw SQLite baseline measured in the same run, with the ratio and the target.
 * See docs/benchmarks.md for the command and {@link Options#usage()} for the options.
 */
public final class BenchmarkMain {

	private BenchmarkMain() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals("--role=enqueuer")) {
			runEnqueuer(args);
			return;
		}
		if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
			System.out.println(Options.usage());
			return;
		}
		Options options;
		try {
			options = Options.parse(args);
		}
		catch (IllegalArgumentException ex) {
			System.err.println(ex.getMessage());
			System.exit(2);
			return;
		}
		run(options, System.out);
		// Pool housekeeping threads of the databases must not keep the JVM alive.
		System.exit(0);
	}

	/**
	 * Runs the selected scenarios and prints the settings and the table to {@code out}.
	 */
	static ResultTable run(Options options, PrintStream out) throws Exception {
		Path directory = Files.createTempDirectory(Files.createDirectories(options.directory), "jobqueue-bench-");
		ResultTable table = new ResultTable();
		long start = System.nanoTime();
		try {
			new Scenarios(options, table, directory).runSelected();
		}
		finally {
			if (!options.keepFiles) {
				deleteTree(directory);
			}
		}
		out.println("jobqueue benchmark: " + describe(options));
		out.printf("Java %s (%s), %d cores, database files in %s; took %.0f s%n", Runtime.version(),
				System.getProperty("java.vm.name"), Runtime.getRuntime().availableProcessors(), options.directory,
				(System.nanoTime() - start) / 1e9);
		out.println("Every database: WAL, synchronous=NORMAL unless stated, no-op jobs; raw = plain JDBC, same schema, "
				+ "same rows per job, writers serialised in-process.");
		out.println();
		table.print(out);
		out.flush();
		return table;
	}

	private static String describe(Options options) {
		return (options.quick ? "--quick " : "") + "scenarios " + options.scenarios + ", worker threads "
				+ options.workerThreads + ", executors " + options.executors + ", burn-down " + options.jobs
				+ " jobs, poll interval " + options.pollInterval.toMillis() + " ms, stacks " + options.stacks
				+ (options.runs("flow") ? ", " + describeFlow(options) : "") + ", JVM args "
				+ ManagementFactory.getRuntimeMXBean().getInputArguments();
	}

	/** The sizes of the flow control rows, which the other scenarios' do not say. */
	static String describeFlow(Options options) {
		return String.format(Locale.ROOT,
				"flow: burn-downs of %d jobs over %d keys, %d worker threads, repeat %d; rate limit %d/1s watched %d s "
						+ "over a backlog of %d",
				options.flowJobs, options.flowKeys, options.flowThreads, options.repeat, options.ratePerSecond,
				options.rateDuration.toSeconds(), options.rateBacklog);
	}

	private static void runEnqueuer(String[] args) {
		Path file = null;
		int rate = 200;
		int count = 0;
		for (String arg : args) {
			if (arg.startsWith("--file=")) {
				file = Path.of(arg.substring("--file=".length()));
			}
			else if (arg.startsWith("--rate=")) {
				rate = Integer.parseInt(arg.substring("--rate=".length()));
			}
			else if (arg.startsWith("--count=")) {
				count = Integer.parseInt(arg.substring("--count=".length()));
			}
		}
		if (file == null || count <= 0) {
			throw new IllegalArgumentException("The enqueuer role needs --file=PATH and --count=N");
		}
		Scenarios.runEnqueuer(file, rate, count);
	}

	private static void deleteTree(Path directory) throws IOException {
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
	}

}
