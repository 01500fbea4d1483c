package dev.jobqueue.test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.MergedContextConfiguration;

import dev.jobqueue.test.AutoConfigureJobQueue.RunJobs;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class JobQueueTestContextCustomizerTests {

	private final MergedContextConfiguration configuration = new MergedContextConfiguration(getClass(), null, null,
			null, null);

	@Test
	void thePropertyThatKeepsTheConfiguredDatabaseHasMetadataForIdes() throws Exception {
		try (var metadata = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(metadata).as("META-INF/spring-configuration-metadata.json").isNotNull();
			assertThat(new String(metadata.readAllBytes(), StandardCharsets.UTF_8))
				.contains("\"name\": \"" + JobQueueTestContextCustomizer.TEMPORARY_DATABASE_PROPERTY + "\"");
		}
	}

	@Test
	void theThrowawayDatabaseIsDeletedWhenTheContextCloses() throws Exception {
		GenericApplicationContext context = new GenericApplicationContext();
		new JobQueueTestContextCustomizer(RunJobs.ON_TEST_THREAD, true).customizeContext(context, this.configuration);
		String url = context.getEnvironment().getProperty("jobqueue.datasource.url");
		Path directory = Path.of(url.substring("jdbc:sqlite:".length())).getParent();
		Files.writeString(directory.resolve("jobqueue.db-wal"), "written by the queue");
		context.refresh();
		assertThat(directory).isDirectory();

		context.close();

		assertThat(directory).doesNotExist();
	}

	@Test
	void aQueueSharingTheApplicationsSqliteDataSourceSharesTheThrowawayFile() {
		GenericApplicationContext context = new GenericApplicationContext();
		context.getEnvironment()
			.getPropertySources()
			.addLast(new MapPropertySource("app", Map.of("spring.datasource.url", "jdbc:sqlite:data/app.db")));
		new JobQueueTestContextCustomizer(RunJobs.ON_TEST_THREAD, true).customizeContext(context, this.configuration);

		assertThat(context.getEnvironment().getProperty("spring.datasource.url")).contains("jobqueue-test-");
		assertThat(context.getEnvironment().getProperty("jobqueue.datasource.url")).isNull();
		context.refresh();
		context.close();
	}

	@Test
	void jobsOnTheTestThreadKeepTheWorkerAndSchedulerFromStarting() {
		GenericApplicationContext context = new GenericApplicationContext();
		new JobQueueTestContextCustomizer(RunJobs.ON_TEST_THREAD, false).customizeContext(context, this.configuration);

		assertThat(context.getEnvironment().getProperty("jobqueue.worker.auto-startup")).isEqualTo("false");
		assertThat(context.getEnvironment().getProperty("jobqueue.scheduling.auto-startup")).isEqualTo("false");
		assertThat(context.getEnvironment().getProperty("jobqueue.datasource.url")).isNull();
	}

	@Test
	void aConfiguredPostgresqlQueueIsReplacedSayingSoAndHowToKeepIt(CapturedOutput output) {
		GenericApplicationContext context = withQueueUrl("jdbc:postgresql://db:5432/app?user=app&password=secret");
		new JobQueueTestContextCustomizer(RunJobs.ON_TEST_THREAD, true).customizeContext(context, this.configuration);

		String url = context.getEnvironment().getProperty("jobqueue.datasource.url");
		assertThat(url).startsWith("jdbc:sqlite:").contains("jobqueue-test-");
		assertThat(output)
			.contains("@AutoConfigureJobQueue: the job queue uses a throwaway SQLite file "
					+ url.substring("jdbc:sqlite:".length())
					+ ", instead of jobqueue.datasource.url=jdbc:postgresql://db:5432/app")
			.contains("set @AutoConfigureJobQueue(temporaryDatabase = false) or jobqueue.test.temporary-database=false")
			.doesNotContain("secret");
		context.refresh();
		context.close();
	}

	@Test
	void aConfiguredPostgresqlQueueIsKeptWhenThePropertySaysSo(CapturedOutput output) {
		GenericApplicationContext context = withQueueUrl("jdbc:postgresql://db:5432/app");
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("ci", Map.of("jobqueue.test.temporary-database", "false")));
		new JobQueueTestContextCustomizer(RunJobs.ON_TEST_THREAD, true).customizeContext(context, this.configuration);

		assertThat(context.getEnvironment().getProperty("jobqueue.datasource.url"))
			.isEqualTo("jdbc:postgresql://db:5432/app");
		assertThat(output).contains("@AutoConfigureJobQueue: the job queue keeps the database the test configuration "
				+ "names: jobqueue.datasource.url=jdbc:postgresql://db:5432/app");
	}

	@Test
	void aConfiguredPostgresqlQueueIsKeptWhenTheAnnotationSaysSo(CapturedOutput output) {
		GenericApplicationContext context = withQueueUrl("jdbc:postgresql://db:5432/app");
		new JobQueueTestContextCustomizer(RunJobs.ON_TEST_THREAD, false).customizeContext(context, this.configuration);

		assertThat(context.getEnvironment().getProperty("jobqueue.datasource.url"))
			.isEqualTo("jdbc:postgresql://db:5432/app");
		assertThat(output).contains("keeps the database the test configuration names");
	}

	private static GenericApplicationContext withQueueUrl(String url) {
		GenericApplicationContext context = new GenericApplicationContext();
		context.getEnvironment()
			.getPropertySources()
			.addLast(new MapPropertySource("app", Map.of("jobqueue.datasource.url", url)));
		return context;
	}

	@Test
	void equalSettingsShareACachedContext() {
		assertThat(new JobQueueTestContextCustomizer(RunJobs.ON_TEST_THREAD, true))
			.isEqualTo(new JobQueueTestContextCustomizer(RunJobs.ON_TEST_THREAD, true))
			.isNotEqualTo(new JobQueueTestContextCustomizer(RunJobs.IN_BACKGROUND, true));
	}

}
