package dev.jobqueue.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The tool run two ways: in this JVM through its entry point ({@link #run}: the same
 * parsing, commands, output and exit codes, with no JVM to start), and as the built jar
 * in a process of its own, as an operator runs it ({@link #jar}: {@code java -jar
 * target/jobqueue-cli.jar ...}, for what only a process shows: its start-up from the
 * jar's class path, its exit code, and standard output and error as a script reads them,
 * logging included).
 */
final class Cli {

	static final Path JAR = Path.of("target", "jobqueue-cli.jar");

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private Cli() {
	}

	/**
	 * What one run answered.
	 *
	 * @param exitCode its exit code
	 * @param out its standard output
	 * @param err its standard error
	 */
	record Run(int exitCode, String out, String err) {

		JsonNode json() {
			return JSON.readTree(this.out);
		}

		@Override
		public String toString() {
			return "exit " + this.exitCode + "\n--- out\n" + this.out + "--- err\n" + this.err;
		}

	}

	/**
	 * Runs the tool in this JVM, as {@code main} runs it but answering the exit code,
	 * with an empty environment.
	 */
	static Run run(String... args) {
		StringWriter out = new StringWriter();
		StringWriter err = new StringWriter();
		int exitCode = JobQueueCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true), Map.of());
		return new Run(exitCode, out.toString(), err.toString());
	}

	/**
	 * Runs the built jar in a process of its own, with the java of the test's JVM (and
	 * its quick compiler only).
	 */
	static Run jar(String... args) {
		if (!Files.isRegularFile(JAR)) {
			throw new IllegalStateException(JAR.toAbsolutePath() + " is not built: run the tests in the "
					+ "integration-test phase (./mvnw verify -pl jobqueue-cli), after package");
		}
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		// A run lasts a second or two: the quick compiler alone starts it about 40 %
		// sooner.
		command.add("-XX:TieredStopAtLevel=1");
		command.add("-jar");
		command.add(JAR.toString());
		command.addAll(List.of(args));
		try {
			Path out = Files.createTempFile("jobqueue-cli", ".out");
			Path err = Files.createTempFile("jobqueue-cli", ".err");
			try {
				Process process = new ProcessBuilder(command).redirectOutput(out.toFile())
					.redirectError(err.toFile())
					.start();
				process.getOutputStream().close();
				if (!process.waitFor(120, TimeUnit.SECONDS)) {
					process.destroyForcibly();
					throw new IllegalStateException("jobqueue-cli " + String.join(" ", args) + " did not end");
				}
				return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
						Files.readString(err, StandardCharsets.UTF_8));
			}
			finally {
				Files.deleteIfExists(out);
				Files.deleteIfExists(err);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
