package dev.jobqueue.dashboard;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * What the dashboard's browser tests on a SQLite file share: the queue's file in a
 * temporary folder, and one headless Chromium for the class, closed after it.
 */
abstract class SqliteFileBrowserTests {

	@TempDir
	static Path dataDir;

	static Browser browser;

	@DynamicPropertySource
	static void dataDirectory(DynamicPropertyRegistry registry) {
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dataDir.resolve("queue.db"));
	}

	@BeforeAll
	static void startBrowser() {
		browser = Browser.start(dataDir, 1280, 900);
	}

	@AfterAll
	static void stopBrowser() {
		if (browser != null) {
			browser.close();
		}
	}

}
