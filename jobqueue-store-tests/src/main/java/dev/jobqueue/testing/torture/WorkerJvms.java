package dev.jobqueue.testing.torture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.jobqueue.testing.ChildJvm;
import dev.jobqueue.testing.StoreFixture;

/**
 * The worker JVMs a torture harness launches on one database, as many as it wants, each
 * with the arguments every torture worker takes ({@link WorkerMain}) and its output in a
 * log of its own; and what the harness asks of them: how they exited after a signal or by
 * themselves, and their loop failures. Closing kills those still alive, so no JVM
 * outlives a failed test.
 */
final class WorkerJvms implements AutoCloseable {

	private static final Pattern LOOP_FAILURES = Pattern.compile("loopFailures=(\\d+)");

	private final Class<?> main;

	private final String name;

	private final Path dir;

	private final TortureStore store;

	private final StoreFixture db;

	private final int threads;

	private final long leaseMillis;

	private final Path records;

	private final Path marker;

	private final Object[] extra;

	private final List<ChildJvm> launched = new CopyOnWriteArrayList<>();

	/**
	 * @param main the worker's main class
	 * @param name what worker ids and logs start with
	 * @param dir where the logs go
	 * @param extra the arguments the worker takes beyond those of every torture worker
	 */
	WorkerJvms(Class<?> main, String name, Path dir, TortureStore store, StoreFixture db, int threads, long leaseMillis,
			Path records, Path marker, Object... extra) {
		this.main = main;
		this.name = name;
		this.dir = dir;
		this.store = store;
		this.db = db;
		this.threads = threads;
		this.leaseMillis = leaseMillis;
		this.records = records;
		this.marker = marker;
		this.extra = extra;
	}

	/** Starts another worker JVM. */
	synchronized ChildJvm launch() {
		String workerId = this.name + "-" + this.launched.size();
		ChildJvm worker = ChildJvm.start(this.main, this.dir.resolve(workerId + ".log"),
				WorkerMain.arguments(this.store, this.store.location(this.db), workerId, this.threads, this.leaseMillis,
						this.records, this.marker, this.extra));
		this.launched.add(worker);
		return worker;
	}

	/** The worker id of {@code worker}, as the jobs it claims show it. */
	String workerId(ChildJvm worker) {
		return this.name + "-" + this.launched.indexOf(worker);
	}

	/** How many worker JVMs were started. */
	int launchedCount() {
		return this.launched.size();
	}

	/**
	 * Sends {@code signal} to {@code worker} and waits for it to exit.
	 * @return whether it exited as that signal should make it (told on standard error if
	 * not)
	 */
	static boolean stop(ChildJvm worker, Signal signal) {
		signal.send(worker);
		return exitedAfter(worker, signal);
	}

	/**
	 * Waits for {@code worker}, sent {@code signal}, to exit.
	 * @return whether it exited as that signal should make it (told on standard error if
	 * not)
	 */
	static boolean exitedAfter(ChildJvm worker, Signal signal) {
		int exit = worker.waitForExit(Duration.ofSeconds(60));
		if (exit != signal.exit) {
			System.err.println("worker " + worker.pid() + " exited with " + exit + " after SIG" + signal + ", not "
					+ signal.exit + ":\n" + worker.output());
			return false;
		}
		return true;
	}

	/**
	 * Waits for workers that finish by themselves (the marker is written).
	 * @return how many did not exit with 0, each told on standard error
	 */
	static int awaitFinished(List<ChildJvm> workers) {
		int badExits = 0;
		for (ChildJvm worker : workers) {
			int exit = worker.waitForExit(Duration.ofSeconds(60));
			if (exit != 0) {
				System.err.println("worker " + worker.pid() + " exited with " + exit + ":\n" + worker.output());
				badExits++;
			}
		}
		return badExits;
	}

	/** The last loop-failure count each worker printed, summed. */
	long loopFailures() throws IOException {
		long total = 0;
		for (ChildJvm worker : this.launched) {
			long last = 0;
			for (String line : Files.readAllLines(worker.log())) {
				Matcher matcher = LOOP_FAILURES.matcher(line);
				if (matcher.find()) {
					last = Long.parseLong(matcher.group(1));
				}
			}
			total += last;
		}
		return total;
	}

	/** Kills what a failed test left running. */
	@Override
	public void close() {
		for (ChildJvm worker : this.launched) {
			if (worker.isAlive()) {
				worker.kill();
				try {
					worker.waitForExit(Duration.ofSeconds(30));
				}
				catch (AssertionError ex) {
					System.err.println(ex.getMessage());
				}
			}
		}
	}

	/** The signals the harnesses send, and the exit each should cause. */
	enum Signal {

		/** SIGKILL: the JVM dies at once. */
		KILL(ChildJvm.KILLED),

		/** SIGTERM: the worker stops gracefully. */
		TERM(ChildJvm.TERMINATED);

		private final int exit;

		Signal(int exit) {
			this.exit = exit;
		}

		private void send(ChildJvm worker) {
			if (this == KILL) {
				worker.kill();
			}
			else {
				worker.terminate();
			}
		}

	}

}
