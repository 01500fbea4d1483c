package dev.jobqueue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

	private ChildJvm(Process process, Path log) {
		this.process = process;
		this.log = log;
	}

	/**
	 * Starts {@code main} with the test class path, a small heap and quick start-up, its
	 * output and errors in {@code log}.
	 */
	public static ChildJvm start(Class<?> main, Path log, Object... args) {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
						"-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), main.getName()));
		for (Object arg : args) {
			command.add(String.valueOf(arg));
		}
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.redirectErrorStream(true);
		builder.redirectOutput(log.toFile());
		try {
			return new ChildJvm(builder.start(), log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start a JVM for " + main.getName(), ex);
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
