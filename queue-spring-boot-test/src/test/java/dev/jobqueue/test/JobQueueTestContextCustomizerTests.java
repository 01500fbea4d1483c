package dev.jobqueue.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.MergedContextConfiguration;

import dev.jobqueue.test.AutoConfigureJobQueue.RunJobs;

import static org.assertj.core.api.Assertions.assertThat;

class JobQueueTestContextCustomizerTests {

	private final MergedContextConfiguration configuration = new MergedContextConfiguration(getClass(), null, null,
			null, null);

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
	void equalSettingsShareACachedContext() {
		assertThat(new JobQueueTestContextCustomizer(RunJobs.ON_TEST_THREAD, true))
			.isEqualTo(new JobQueueTestContextCustomizer(RunJobs.ON_TEST_THREAD, true))
			.isNotEqualTo(new JobQueueTestContextCustomizer(RunJobs.IN_BACKGROUND, true));
	}

}
