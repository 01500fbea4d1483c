package dev.jobqueue.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The engine stays free of Spring, and of hidden clocks, so it can be reused and tested on its own. */
class CoreIsSpringFreeTests {

	private static final Path CORE = Path.of("src/main/java/dev/jobqueue/core");

	@Test
	void coreImportsNoSpringOrJackson() throws IOException {
		assertThat(sourcesContaining("import org.springframework", "import tools.jackson", "import com.fasterxml"))
			.isEmpty();
	}

	@Test
	void mainCodeNeverReadsTheSystemClockDirectly() throws IOException {
		assertThat(sourcesContaining("Instant.now()", "System.currentTimeMillis()")).isEmpty();
	}

	private static List<Path> sourcesContaining(String... needles) throws IOException {
		try (Stream<Path> files = Files.walk(CORE.getParent())) {
			return files.filter((file) -> file.toString().endsWith(".java"))
				.filter((file) -> file.startsWith(CORE) || !needles[0].startsWith("import"))
				.filter((file) -> {
					try {
						String source = Files.readString(file);
						return Stream.of(needles).anyMatch(source::contains);
					}
					catch (IOException ex) {
						throw new IllegalStateException(ex);
					}
				})
				.toList();
		}
	}

}
