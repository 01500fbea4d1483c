package dev.jobqueue.it;

import java.nio.file.Path;
import java.time.Duration;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.it.StarterOnlyApplication.Greeting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Nothing configured: the queue lives in jobqueue.db in the working directory. */
@SpringBootTest
class StarterOnlyApplicationTests {

	@Autowired
	private JobQueue queue;

	@Autowired
	private ApplicationContext context;

	@Test
	void startsWithoutAnyDataSourceAndRunsAJobFromJobqueueDbInTheWorkingDirectory() {
		assertThat(this.context.getBeanNamesForType(DataSource.class)).isEmpty();
		long id = this.queue.enqueue("greet", new Greeting("world"));
		Job job = await().atMost(Duration.ofSeconds(30))
			.until(() -> this.queue.find(id).orElseThrow(), (found) -> found.status() == JobStatus.SUCCEEDED);
		assertThat(job.result()).contains("hello world");
		assertThat(Path.of("jobqueue.db")).isRegularFile();
	}

}
