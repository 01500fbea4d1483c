package dev.jobqueue.testing;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What handler bodies did, written by the bodies themselves, so a test counts the runs
 * the database cannot show (a body that ran twice although one attempt row says it
 * succeeded). Each process appends {@code <job id>} lines (or {@code <job id> <value>},
 * {@link #record(long, String)}) to {@code <name>-<pid>.txt} in a directory the test
 * reads; the writes are unbuffered, so a line written before a SIGKILL survives it.
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
		return write(jobId + "\n");
	}

	/**
	 * Records one run of the job's handler body and the value that run produced (no
	 * blanks in it); returns {@code value}.
	 */
	public String record(long jobId, String value) {
		write(jobId + " " + value + "\n");
		return value;
	}

	private Object write(String text) {
		byte[] line = text.getBytes(StandardCharsets.UTF_8);
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
		values(directory, name).forEach((jobId, values) -> runs.put(jobId, values.size()));
		return runs;
	}

	/**
	 * The values recorded for each job under {@code name} ({@link #record(long, String)};
	 * {@code ""} for a run recorded without one), over every process.
	 */
	public static Map<Long, List<String>> values(Path directory, String name) {
		Map<Long, List<String>> values = new HashMap<>();
		try (Stream<Path> files = Files.list(directory)) {
			for (Path file : files.filter((f) -> f.getFileName().toString().matches(name + "-\\d+\\.txt")).toList()) {
				for (String line : Files.readAllLines(file)) {
					if (!line.isBlank()) {
						String[] fields = line.strip().split(" ", 2);
						values.computeIfAbsent(Long.parseLong(fields[0]), (jobId) -> new ArrayList<>())
							.add((fields.length > 1) ? fields[1] : "");
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return values;
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
