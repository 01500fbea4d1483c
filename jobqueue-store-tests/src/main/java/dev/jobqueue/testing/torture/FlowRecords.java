package dev.jobqueue.testing.torture;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * When handler bodies ran, written by the bodies themselves: the evidence the flow
 * torture test judges limits by, independent of what the queue believes it did. Each
 * process appends {@code S|E <job id> <attempt> <epoch microseconds>} lines to
 * {@code flow-<pid>.txt}; every line is one unbuffered write, so a line written before a
 * SIGKILL survives it.
 * <p>
 * Times are wall-clock microseconds ({@link Instant#now()}): the one clock every process
 * of the machine reads, so starts and ends of different JVMs compare, and the queue's own
 * times (read from the same clock by the workers) compare with them.
 */
public final class FlowRecords implements AutoCloseable {

	private static final Pattern FILE = Pattern.compile("flow-(\\d+)\\.txt");

	private final FileOutputStream out;

	private FlowRecords(FileOutputStream out) {
		this.out = out;
	}

	/** This process's records in {@code directory}. */
	public static FlowRecords in(Path directory) {
		Path file = directory.resolve("flow-" + ProcessHandle.current().pid() + ".txt");
		try {
			return new FlowRecords(new FileOutputStream(file.toFile(), true));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The wall clock in microseconds since the epoch. */
	public static long nowMicros() {
		return micros(Instant.now());
	}

	/** An instant in microseconds since the epoch. */
	public static long micros(Instant instant) {
		return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
	}

	/** Records that a run of the job's handler body starts now. */
	public void started(long jobId, int attempt) {
		write("S " + jobId + " " + attempt + " " + nowMicros() + "\n");
	}

	/**
	 * Records that a run of the job's handler body ends now; written before the handler
	 * returns, so before the queue learns of the end.
	 */
	public void ended(long jobId, int attempt) {
		write("E " + jobId + " " + attempt + " " + nowMicros() + "\n");
	}

	private void write(String line) {
		byte[] bytes = line.getBytes(StandardCharsets.US_ASCII);
		synchronized (this.out) {
			try {
				this.out.write(bytes);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
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

	/**
	 * One run of a handler body.
	 *
	 * @param jobId the job
	 * @param attempt the attempt the body was told
	 * @param pid the process that ran it
	 * @param start when the body started, in epoch microseconds
	 * @param end when it ended, or {@code -1} when it never wrote its end (its process
	 * was killed while it ran)
	 */
	public record Run(long jobId, int attempt, long pid, long start, long end) {

		/** Whether the body wrote its end. */
		public boolean ended() {
			return this.end >= 0;
		}

	}

	/**
	 * Every run recorded in {@code directory}, by every process, in no particular order.
	 * A start is paired with the next end of the same job and attempt in the same
	 * process; a line not yet ended by its newline is left out.
	 */
	public static List<Run> read(Path directory) {
		List<Run> runs = new ArrayList<>();
		try (Stream<Path> files = Files.list(directory)) {
			for (Path file : files.toList()) {
				Matcher name = FILE.matcher(file.getFileName().toString());
				if (name.matches()) {
					runs.addAll(read(file, Long.parseLong(name.group(1))));
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return runs;
	}

	private static List<Run> read(Path file, long pid) throws IOException {
		List<Run> runs = new ArrayList<>();
		Map<String, long[]> open = new HashMap<>();
		String text = Files.readString(file, StandardCharsets.US_ASCII);
		// A line still being written (read while its process runs) is left for later.
		for (String line : text.substring(0, text.lastIndexOf('\n') + 1).split("\n")) {
			String[] fields = line.split(" ");
			if (fields.length != 4) {
				continue;
			}
			long jobId = Long.parseLong(fields[1]);
			int attempt = Integer.parseInt(fields[2]);
			long at = Long.parseLong(fields[3]);
			String run = jobId + " " + attempt;
			if (fields[0].equals("S")) {
				long[] previous = open.put(run, new long[] { at });
				if (previous != null) {
					runs.add(new Run(jobId, attempt, pid, previous[0], -1));
				}
			}
			else {
				long[] started = open.remove(run);
				if (started == null) {
					throw new IllegalStateException("an end without a start in " + file + ": " + line);
				}
				runs.add(new Run(jobId, attempt, pid, started[0], at));
			}
		}
		open.forEach((run, started) -> {
			String[] fields = run.split(" ");
			runs.add(new Run(Long.parseLong(fields[0]), Integer.parseInt(fields[1]), pid, started[0], -1));
		});
		return runs;
	}

}
