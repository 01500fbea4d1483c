package dev.jobqueue.testing.torture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Where the torture harnesses put the summary line of each run. */
final class TortureReport {

	private TortureReport() {
	}

	/**
	 * Prints {@code summary} on standard output and error, and appends it to
	 * {@code target/<file>}, where the runs of a build collect.
	 */
	static void print(String summary, String file) throws IOException {
		System.out.println(summary);
		System.err.println(summary);
		Files.createDirectories(Path.of("target"));
		Files.writeString(Path.of("target", file), summary + System.lineSeparator(), StandardOpenOption.CREATE,
				StandardOpenOption.APPEND);
	}

}
