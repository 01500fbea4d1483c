package dev.jobqueue.testing;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What handler bodies did, written by the bodies themselves, so a test counts the runs
 * the database cannot show (a body that ran twice although one attempt row says it
 * succeeded). Each process appends {@code <job id>} lines to {@code <name>-<pid>.txt} in
 * a directory the test reads; the writes are unbuffered, so a line written before a
 * SIGKILL survives it.
 */
public final class HandlerRuns implements AutoCloseable {

	private final FileOutputStream out;

	private HandlerRuns(FileOutputStream out) {
		this.out = out;
	}

	/** The records of this process, named {@code name} (e.g. "started", "completed"). */
	public static HandlerRuns in(Path directory, String name) {
		Path file = directory.resolve(name + "-" + ProcessHandle.current().pid() + ".txt");
		try {
			return new HandlerRuns(new FileOutputStream(file.toFile(), true));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Records one run of the job's handler body; returns {@code null} for handlers. */
	public Object record(long jobId) {
		byte[] line = (jobId + "\n").getBytes(StandardCharsets.US_ASCII);
		synchronized (this.out) {
			try {
				this.out.write(line);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return null;
	}

	/** How many times each job was recorded under {@code name}, over every process. */
	public static Map<Long, Integer> read(Path directory, String name) {
		Map<Long, Integer> runs = new HashMap<>();
		try (Stream<Path> files = Files.list(directory)) {
			for (Path file : files.filter((f) -> f.getFileName().toString().matches(name + "-\\d+\\.txt")).toList()) {
				for (String line : Files.readAllLines(file)) {
					if (!line.isBlank()) {
						runs.merge(Long.parseLong(line.strip()), 1, Integer::sum);
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return runs;
	}

	/** All runs in a {@link #read} answer. */
	public static long total(Map<Long, Integer> runs) {
		return runs.values().stream().mapToLong(Integer::longValue).sum();
	}

	@Override
	public void close() {
		try {
			this.out.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
