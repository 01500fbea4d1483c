package dev.jobqueue.it;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.jobqueue.JobQueue;
import dev.jobqueue.it.ShopApplication.Shipment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures the window a job enqueued in another database's transaction leaves: from the
 * moment that transaction committed to the moment the job is visible to workers. A
 * process that dies inside it leaves the job held.
 */
@SpringBootTest(properties = { "jobqueue.datasource.url=jdbc:sqlite:window/jobs.db", "jobqueue.worker.enabled=false" })
class AfterCommitWindowTests {

	@Autowired
	private JobQueue queue;

	@Autowired
	private TransactionTemplate transactions;

	@Test
	void everyJobIsReleasedByTheTimeItsBusinessCommitReturnsAndTheWindowIsPrinted() {
		int transactions = 500;
		List<Long> windows = new ArrayList<>();
		for (int i = 0; i < transactions; i++) {
			long[] committedAt = new long[1];
			long id = this.transactions.execute((status) -> {
				TransactionSynchronizationManager.registerSynchronization(new FirstAfterCommit(committedAt));
				return this.queue.enqueue("ship", new Shipment("window-" + status.hashCode()));
			});
			long visibleAt = System.nanoTime();
			assertThat(this.queue.find(id).orElseThrow().runAt().getEpochSecond()).isLessThan(Long.MAX_VALUE / 2000);
			windows.add(visibleAt - committedAt[0]);
		}
		Collections.sort(windows);
		System.out.printf("after-commit window over %d transactions: p50 %.3f ms, p99 %.3f ms, max %.3f ms%n",
				transactions, windows.get(transactions / 2) / 1e6, windows.get(transactions * 99 / 100) / 1e6,
				windows.get(transactions - 1) / 1e6);
	}

	/**
	 * Notes when the application's commit is done, before any other synchronization runs.
	 */
	private record FirstAfterCommit(long[] committedAt) implements TransactionSynchronization {

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

		@Override
		public void afterCommit() {
			this.committedAt[0] = System.nanoTime();
		}

	}

}
