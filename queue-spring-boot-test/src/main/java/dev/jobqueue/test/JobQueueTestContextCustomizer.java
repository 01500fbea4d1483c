package dev.jobqueue.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

import dev.jobqueue.test.AutoConfigureJobQueue.RunJobs;

/**
 * Applies {@link AutoConfigureJobQueue} to a test context before it refreshes: keeps the
 * worker and scheduler from starting when jobs run on the test thread, and points the
 * queue at a file in a new temporary directory that is deleted when the context closes.
 * Equal for equal settings, so that Spring's context cache shares contexts as usual (each
 * cached context has its own file).
 */
final class JobQueueTestContextCustomizer implements ContextCustomizer {

	static final String RUN_JOBS_PROPERTY = "jobqueue.test.run-jobs";

	private static final String SQLITE_PREFIX = "jdbc:sqlite:";

	private final RunJobs runJobs;

	private final boolean temporaryDatabase;

	JobQueueTestContextCustomizer(RunJobs runJobs, boolean temporaryDatabase) {
		this.runJobs = runJobs;
		this.temporaryDatabase = temporaryDatabase;
	}

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration configuration) {
		ConfigurableEnvironment environment = context.getEnvironment();
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put(RUN_JOBS_PROPERTY, this.runJobs.name());
		if (this.runJobs == RunJobs.ON_TEST_THREAD) {
			properties.put("jobqueue.worker.auto-startup", "false");
			properties.put("jobqueue.scheduling.auto-startup", "false");
		}
		if (this.temporaryDatabase) {
			Path directory = createDirectory();
			String url = SQLITE_PREFIX + directory.resolve("jobqueue.db");
			properties.put(databaseProperty(environment), url);
			// Registered first, so destroyed last: after the pools that hold the file
			// open are closed.
			((DefaultListableBeanFactory) context.getBeanFactory()).registerDisposableBean("jobqueueTestDatabase",
					() -> delete(directory));
		}
		environment.getPropertySources().addFirst(new MapPropertySource("jobqueueTest", properties));
	}

	/**
	 * Where the throwaway file goes: the queue's own URL, or the application's SQLite
	 * DataSource when the queue shares it (as it does when it has no URL of its own), so
	 * that enqueue joins the caller's transaction as in production.
	 */
	private static String databaseProperty(ConfigurableEnvironment environment) {
		String queueUrl = environment.getProperty("jobqueue.datasource.url");
		String applicationUrl = environment.getProperty("spring.datasource.url");
		if (queueUrl == null && applicationUrl != null && applicationUrl.startsWith(SQLITE_PREFIX)) {
			return "spring.datasource.url";
		}
		return "jobqueue.datasource.url";
	}

	private static Path createDirectory() {
		try {
			return Files.createTempDirectory("jobqueue-test-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a temporary directory for the test's queue database", ex);
		}
	}

	private static void delete(Path directory) throws IOException {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(path);
			}
		}
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof JobQueueTestContextCustomizer customizer && customizer.runJobs == this.runJobs
				&& customizer.temporaryDatabase == this.temporaryDatabase;
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.runJobs, this.temporaryDatabase);
	}

}
