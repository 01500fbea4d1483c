package dev.jobqueue.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Another JVM running a {@code main} class of the test class path, its output in a log
 * file: how tests put a worker, a starter or a cleaner in a process of its own, to kill
 * it for real. Exits are checked, never thrown away: {@link #stop} answers the exit code
 * and fails when the process does not exit.
 */
public final class ChildJvm {

	/** Exit code of a JVM ended by SIGKILL (128 + 9). */
	public static final int KILLED = 137;

	/** Exit code of a JVM that ran its shutdown hooks on SIGTERM (128 + 15). */
	public static final int TERMINATED = 143;

	private final Process process;

	private final Path log;

	/**
	 * The lines not yet taken by {@link #nextLine}; empty at the end of the output;
	 * {@code null} unless watched.
	 */
	private final BlockingQueue<Optional<String>> lines;

	private ChildJvm(Process process, Path log, BlockingQueue<Optional<String>> lines) {
		this.process = process;
		this.log = log;
		this.lines = lines;
	}

	/**
	 * Starts {@code main} with the test class path, a small heap and quick start-up, its
	 * output and errors in {@code log}.
	 */
	public static ChildJvm start(Class<?> main, Path log, Object... args) {
		ProcessBuilder builder = builder(main, args);
		builder.redirectOutput(log.toFile());
		return new ChildJvm(start(builder, main), log, null);
	}

	/**
	 * Starts {@code main} as {@link #start} does, and lets the test read its output line
	 * by line while it runs: {@link #nextLine}. The lines go to {@code log} too.
	 */
	public static ChildJvm startWatched(Class<?> main, Path log, Object... args) {
		Process process = start(builder(main, args), main);
		BlockingQueue<Optional<String>> lines = new LinkedBlockingQueue<>();
		Thread reader = new Thread(() -> copyLines(process, log, lines), "output of " + main.getSimpleName());
		reader.setDaemon(true);
		reader.start();
		return new ChildJvm(process, log, lines);
	}

	private static ProcessBuilder builder(Class<?> main, Object... args) {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
						"-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), main.getName()));
		for (Object arg : args) {
			command.add(String.valueOf(arg));
		}
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.redirectErrorStream(true);
		return builder;
	}

	private static Process start(ProcessBuilder builder, Class<?> main) {
		try {
			return builder.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start a JVM for " + main.getName(), ex);
		}
	}

	private static void copyLines(Process process, Path log, BlockingQueue<Optional<String>> lines) {
		try (BufferedReader output = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line; (line = output.readLine()) != null;) {
				Files.writeString(log, line + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
						StandardOpenOption.APPEND);
				lines.add(Optional.of(line));
			}
		}
		catch (IOException ex) {
			// The JVM was killed mid-line or the log is gone: the output ends here.
		}
		finally {
			lines.add(Optional.empty());
		}
	}

	public Process process() {
		return this.process;
	}

	public long pid() {
		return this.process.pid();
	}

	public boolean isAlive() {
		return this.process.isAlive();
	}

	public Path log() {
		return this.log;
	}

	/** What the JVM printed so far. */
	public String output() {
		try {
			return Files.readString(this.log);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	/**
	 * The next line the JVM printed, waiting for it.
	 * @throws AssertionError when no line comes within {@code timeout} or the output
	 * ended, with the log so far
	 * @throws IllegalStateException unless the JVM was {@link #startWatched started
	 * watched}
	 */
	public String nextLine(Duration timeout) {
		if (this.lines == null) {
			throw new IllegalStateException("Start the JVM with ChildJvm.startWatched to read its lines");
		}
		Optional<String> line;
		try {
			line = this.lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError("interrupted while waiting for a line of JVM " + pid(), ex);
		}
		if (line == null) {
			throw new AssertionError(
					"JVM " + pid() + " printed no line within " + timeout + ". Its log " + this.log + ":\n" + output());
		}
		if (line.isEmpty()) {
			// Left for a later call to see too.
			this.lines.add(line);
			throw new AssertionError("JVM " + pid() + " ended its output (alive: " + isAlive() + "). Its log "
					+ this.log + ":\n" + output());
		}
		return line.get();
	}

	/** Sends SIGKILL: the JVM dies at once, mid-statement or mid-job. */
	public ChildJvm kill() {
		this.process.destroyForcibly();
		return this;
	}

	/**
	 * Sends SIGTERM: the JVM runs its shutdown hooks (as an application on a graceful
	 * stop) and exits.
	 */
	public ChildJvm terminate() {
		this.process.destroy();
		return this;
	}

	/**
	 * Waits for the JVM to exit and answers its exit code.
	 * @throws AssertionError when it is still running after {@code timeout} (it is then
	 * killed, so no JVM outlives its test)
	 */
	public int waitForExit(Duration timeout) {
		try {
			if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				this.process.destroyForcibly();
				this.process.waitFor(10, TimeUnit.SECONDS);
				throw new AssertionError("JVM " + pid() + " did not exit within " + timeout + "; killed. Its log "
						+ this.log + ":\n" + output());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
			throw new AssertionError("interrupted while waiting for JVM " + pid(), ex);
		}
		return this.process.exitValue();
	}

	/**
	 * Waits for a JVM expected to finish of itself and fails with its log unless it
	 * exited with 0.
	 */
	public void assertExitsCleanly(Duration timeout) {
		int exit = waitForExit(timeout);
		if (exit != 0) {
			throw new AssertionError(
					"JVM " + pid() + " exited with " + exit + ". Its log " + this.log + ":\n" + output());
		}
	}

}
