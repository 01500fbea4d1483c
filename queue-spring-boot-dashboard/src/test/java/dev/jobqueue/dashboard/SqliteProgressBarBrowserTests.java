package dev.jobqueue.dashboard;

import java.nio.file.Path;

import org.junit.jupiter.api.io.TempDir;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link ProgressBarBrowserTests} with the queue in a SQLite file. */
class SqliteProgressBarBrowserTests extends ProgressBarBrowserTests {

	@TempDir
	static Path dataDir;

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) {
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dataDir.resolve("queue.db"));
	}

	/**
	 * With {@code -Djobqueue.dashboard.screenshots=true}, rewrites the overview's picture
	 * in {@code docs/}.
	 */
	@Override
	void overviewShown(Browser browser) {
		if (Boolean.getBoolean("jobqueue.dashboard.screenshots")) {
			browser
				.screenshot(Path.of("").toAbsolutePath().getParent().resolve("docs").resolve("dashboard-overview.png"));
		}
	}

}
