package dev.jobqueue.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.it.NotesApplication.Notes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/** The queue in the application's own SQLite file, joining its transactions. */
@SpringBootTest
class NotesApplicationTests {

	@Autowired
	private Notes notes;

	@Autowired
	private JobQueue queue;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void aRolledBackEnqueueNeverRunsAndACommittedOneAlwaysDoes() {
		List<Long> committed = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			committed.add(this.notes.write("kept " + i, false));
			assertThatIllegalStateException().isThrownBy(() -> this.notes.write("dropped", true))
				.satisfies((ex) -> assertThat(this.queue.find(jobOf(ex.getMessage()))).isEmpty());
		}
		await().atMost(Duration.ofSeconds(60))
			.until(() -> committed.stream().allMatch((id) -> status(id) == JobStatus.SUCCEEDED));
		assertThat(this.jdbc.sql("SELECT count(*) FROM notes WHERE text = 'dropped'").query(Long.class).single())
			.isZero();
	}

	@Test
	void aThousandTransactionsThatReadThenEnqueueAllSucceedWhileTheWorkerCommits() throws Exception {
		String run = "busy " + java.util.UUID.randomUUID() + " ";
		ExecutorService callers = Executors.newFixedThreadPool(4);
		List<Future<Long>> calls = new ArrayList<>();
		try {
			for (int i = 0; i < 1000; i++) {
				String text = run + i;
				calls.add(callers.submit(() -> this.notes.write(text, false)));
			}
			List<Long> ids = new ArrayList<>();
			for (Future<Long> call : calls) {
				ids.add(call.get());
			}
			await().atMost(Duration.ofSeconds(120))
				.until(() -> ids.stream().allMatch((id) -> status(id) == JobStatus.SUCCEEDED));
		}
		finally {
			callers.shutdownNow();
		}
		assertThat(this.jdbc.sql("SELECT count(*) FROM notes WHERE text LIKE ? AND indexed = 1")
			.param(run + "%")
			.query(Long.class)
			.single()).isEqualTo(1000);
	}

	private JobStatus status(long id) {
		return this.queue.find(id).map(Job::status).orElse(null);
	}

	private static long jobOf(String message) {
		return Long.parseLong(message.substring(message.lastIndexOf(' ') + 1));
	}

}
