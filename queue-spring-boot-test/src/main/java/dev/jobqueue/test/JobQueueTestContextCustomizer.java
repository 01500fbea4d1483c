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

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

import dev.jobqueue.jdbc.JdbcUrls;
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

	/**
	 * {@code false} keeps the database the test configuration names, as
	 * {@code temporaryDatabase = false} does, from a profile or a properties file (a CI
	 * run of the tests on PostgreSQL, say).
	 */
	static final String TEMPORARY_DATABASE_PROPERTY = "jobqueue.test.temporary-database";

	private static final Logger logger = LoggerFactory.getLogger(JobQueueTestContextCustomizer.class);

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
		String configured = configuredDatabase(environment);
		boolean temporary = this.temporaryDatabase
				&& environment.getProperty(TEMPORARY_DATABASE_PROPERTY, Boolean.class, true);
		if (!temporary) {
			logger.info("@AutoConfigureJobQueue: the job queue keeps the database the test configuration names: {}",
					(configured != null) ? configured : "the queue's default choice (see 'Where the data lives')");
		}
		else {
			Path directory = createDirectory();
			String url = SQLITE_PREFIX + directory.resolve("jobqueue.db");
			properties.put(databaseProperty(environment), url);
			logger.info("@AutoConfigureJobQueue: the job queue uses a throwaway SQLite file {}{}",
					directory.resolve("jobqueue.db"),
					(configured != null) ? ", instead of " + configured + " (to keep that in tests, set "
							+ "@AutoConfigureJobQueue(temporaryDatabase = false) or " + TEMPORARY_DATABASE_PROPERTY
							+ "=false)" : "");
			// Registered first, so destroyed last: after the pools that hold the file
			// open are closed.
			((DefaultListableBeanFactory) context.getBeanFactory()).registerDisposableBean("jobqueueTestDatabase",
					() -> delete(directory));
		}
		environment.getPropertySources().addFirst(new MapPropertySource("jobqueueTest", properties));
	}

	/**
	 * The database the test configuration names for the queue, credentials masked: its
	 * own URL, or the application's DataSource URL it would share; {@code null} when
	 * neither is set.
	 */
	private static String configuredDatabase(ConfigurableEnvironment environment) {
		String queueUrl = environment.getProperty("jobqueue.datasource.url");
		if (queueUrl != null && !queueUrl.isBlank()) {
			return "jobqueue.datasource.url=" + JdbcUrls.withoutCredentials(queueUrl);
		}
		String applicationUrl = environment.getProperty("spring.datasource.url");
		if (applicationUrl != null && !applicationUrl.isBlank()) {
			return "the application's DataSource spring.datasource.url=" + JdbcUrls.withoutCredentials(applicationUrl);
		}
		return null;
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
