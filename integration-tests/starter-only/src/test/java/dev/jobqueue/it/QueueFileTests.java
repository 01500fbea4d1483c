package dev.jobqueue.it;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.it.StarterOnlyApplication.Greeting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's recommended set-up: the queue's own file from jobqueue.datasource.url, and
 * no other database.
 */
@SpringBootTest(properties = "jobqueue.datasource.url=jdbc:sqlite:queue-url/jobs.db")
class QueueFileTests {

	@Autowired
	private JobQueue queue;

	@Test
	void runsAJobInTheFileOfTheQueueUrl() {
		long id = this.queue.enqueue("greet", new Greeting("file"));
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.queue.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
		assertThat(Path.of("queue-url/jobs.db")).isRegularFile();
	}

}
