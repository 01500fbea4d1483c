package dev.jobqueue.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.transaction.support.TransactionTemplate;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.it.ShopApplication.Orders;
import dev.jobqueue.it.ShopApplication.Shipment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The application's own H2 database and the queue's own file: transactions the queue
 * cannot join.
 */
@SpringBootTest
class ShopApplicationTests {

	@Autowired
	private Orders orders;

	@Autowired
	private JobQueue queue;

	@Autowired
	private DataSource applicationDataSource;

	@Autowired
	private TransactionTemplate transactions;

	@Test
	void theApplicationKeepsItsOwnDataSourceAndTheQueueItsOwnFile() throws Exception {
		try (var connection = this.applicationDataSource.getConnection()) {
			assertThat(connection.getMetaData().getDatabaseProductName()).isEqualTo("H2");
		}
		assertThat(java.nio.file.Path.of("jobqueue.db")).isRegularFile();
	}

	@Test
	void aRolledBackEnqueueNeverRunsAndACommittedOneAlwaysDoes() {
		List<Long> committed = new ArrayList<>();
		List<Long> rolledBack = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			committed.add(this.orders.place("book " + i, 0, false));
			assertThatIllegalStateException().isThrownBy(() -> this.orders.place("declined", 0, true));
			rolledBack.add(this.orders.lastEnqueued());
		}
		await().atMost(Duration.ofSeconds(60))
			.until(() -> committed.stream().allMatch((id) -> status(id) == JobStatus.SUCCEEDED));
		assertThat(rolledBack).allSatisfy((id) -> assertThat(this.queue.find(id)).isEmpty());
	}

	@Test
	void aJobIsHeldFromWorkersUntilItsTransactionCommits() {
		long[] held = new long[1];
		this.transactions.executeWithoutResult((status) -> {
			held[0] = this.queue.enqueue(JobRequest.of("ship", new Shipment("not-yet")).priority(10));
			// A job outside the transaction, of lower priority: once it has run, the
			// worker has polled and would
			// have taken the held job first had it been visible.
			long probe = CompletableFuture.supplyAsync(() -> this.orders.place("probe", -10, false)).join();
			await().atMost(Duration.ofSeconds(30)).until(() -> status(probe) == JobStatus.SUCCEEDED);
			assertThat(status(held[0])).isEqualTo(JobStatus.PENDING);
			status.setRollbackOnly();
		});
		assertThat(this.queue.find(held[0])).isEmpty();
	}

	@Test
	void dedupAnswersAtCallTimeForAHeldJob() {
		this.transactions.executeWithoutResult((status) -> {
			long first = this.queue.enqueue(JobRequest.of("ship", new Shipment("dedup")).dedupKey("order-dedup"));
			long second = this.queue.enqueue(JobRequest.of("ship", new Shipment("dedup")).dedupKey("order-dedup"));
			assertThat(second).isEqualTo(first);
			status.setRollbackOnly();
		});
	}

	private JobStatus status(long id) {
		return this.queue.find(id).map(Job::status).orElse(null);
	}

}
