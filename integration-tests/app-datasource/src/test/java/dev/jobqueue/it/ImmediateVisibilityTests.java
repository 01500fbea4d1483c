package dev.jobqueue.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.it.ShopApplication.Orders;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * jobqueue.enqueue.visibility=immediate: the job is visible at once, whatever becomes of
 * the transaction.
 */
@SpringBootTest(properties = { "jobqueue.datasource.url=jdbc:sqlite:immediate/jobs.db",
		"jobqueue.enqueue.visibility=immediate" })
class ImmediateVisibilityTests {

	@Autowired
	private Orders orders;

	@Autowired
	private JobQueue queue;

	@Test
	void aJobOfARolledBackTransactionStillRuns() {
		assertThatIllegalStateException().isThrownBy(() -> this.orders.place("declined", 0, true));
		long id = this.orders.lastEnqueued();
		// The order was rolled back, so the handler finds no order and the job fails: the
		// reason for the default.
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.queue.find(id).orElseThrow().status() == JobStatus.FAILED);
	}

}
