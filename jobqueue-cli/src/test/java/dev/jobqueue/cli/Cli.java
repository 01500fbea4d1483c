package dev.jobqueue.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The built jar run as a process, as an operator runs it: {@code java -jar
 * target/jobqueue-cli.jar ...}, with the java of the test's JVM (and its quick compiler
 * only).
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

	static Run run(String... args) {
		if (!Files.isRegularFile(JAR)) {
			throw new IllegalStateException(JAR.toAbsolutePath() + " is not built: run the tests in the "
					+ "integration-test phase (./mvnw verify -pl jobqueue-cli), after package");
		}
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		// A run lasts a second or two: the quick compiler alone starts it about 40 %
		// sooner, and the tests run the jar a hundred times.
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
