package dev.jobqueue.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.it.TwoDataSourcesApplication.Orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

@SpringBootTest
class TwoDataSourcesApplicationTests {

	@Autowired
	private Orders orders;

	@Autowired
	private JobQueue queue;

	@Autowired
	@Qualifier("jobsDataSource")
	private DataSource jobsDataSource;

	@Test
	void theQueueLivesInTheDataSourceMarkedForIt() {
		long id = this.orders.place("book", false);
		await().atMost(Duration.ofSeconds(30)).until(() -> status(id) == JobStatus.SUCCEEDED);
		assertThat(JdbcClient.create(this.jobsDataSource)
			.sql("SELECT status FROM jobs WHERE id = ?")
			.param(id)
			.query(String.class)
			.single()).isEqualTo("succeeded");
	}

	@Test
	void aJobEnqueuedInATransactionOnTheOtherDataSourceRunsOnlyIfItCommits() {
		List<Long> committed = new ArrayList<>();
		List<Long> rolledBack = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			committed.add(this.orders.place("book " + i, false));
			assertThatIllegalStateException().isThrownBy(() -> this.orders.place("declined", true));
			rolledBack.add(this.orders.lastEnqueued());
		}
		await().atMost(Duration.ofSeconds(60))
			.until(() -> committed.stream().allMatch((id) -> status(id) == JobStatus.SUCCEEDED));
		assertThat(rolledBack).allSatisfy((id) -> assertThat(this.queue.find(id)).isEmpty());
	}

	private JobStatus status(long id) {
		return this.queue.find(id).map(Job::status).orElse(null);
	}

}
