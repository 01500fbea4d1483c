package dev.jobqueue.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The surfaces that show a queue (the endpoint, the dashboard, the command line, the
 * meters) read it only through the read API ({@code dev.jobqueue.views.QueueViews}),
 * never through the store SPI, and leave the decision whether a caller sees job values to
 * {@code dev.jobqueue.views.ValuePolicy}. Read from the sources, because the command line
 * and the dashboard are not on this module's class path.
 */
class ReadApiArchitectureTests {

	private static final Path ROOT = Path.of("..");

	private static final List<Path> SURFACES = List.of(ROOT.resolve("queue-spring-boot-dashboard/src/main"),
			ROOT.resolve("jobqueue-cli/src/main"),
			ROOT.resolve("queue-spring-boot-autoconfigure/src/main/java/dev/jobqueue/actuate"),
			ROOT.resolve("queue-spring-boot-autoconfigure/src/main/java/dev/jobqueue/metrics"));

	private static final Pattern STORE_SPI = Pattern.compile("dev\\.jobqueue\\.core\\.store\\.");

	/**
	 * Deciding whether values show: the hidden marker written out, a switch over when
	 * values show, or Boot's {@code Show} asked about a caller (other than to match one
	 * role, as Boot matches roles).
	 */
	private static final Pattern SHOW_DECISION = Pattern.compile("\"\\*{6}\"|case (ALWAYS|NEVER|WHEN_AUTHORIZED)"
			+ "|\\.isShown\\((?!securityContext, Set\\.of\\(role\\)\\))");

	@Test
	void surfacesImportNothingOfTheStoreSpi() {
		assertThat(SURFACES).allMatch(Files::isDirectory);
		assertThat(filesMatching(STORE_SPI)).as("main files of the surfaces that use dev.jobqueue.core.store")
			.isEmpty();
	}

	@Test
	void onlyValuePolicyDecidesWhetherValuesShow() {
		assertThat(filesMatching(SHOW_DECISION)).as("main files of the surfaces that decide whether values show")
			.isEmpty();
		assertThat(read(ROOT.resolve("jobqueue-core/src/main/java/dev/jobqueue/views/ValuePolicy.java")))
			.containsPattern(SHOW_DECISION);
	}

	private static List<Path> filesMatching(Pattern pattern) {
		return SURFACES.stream()
			.flatMap(ReadApiArchitectureTests::javaFiles)
			.filter((file) -> pattern.matcher(read(file)).find())
			.toList();
	}

	private static Stream<Path> javaFiles(Path root) {
		try (Stream<Path> files = Files.walk(root)) {
			return files.filter((file) -> file.toString().endsWith(".java")).toList().stream();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
