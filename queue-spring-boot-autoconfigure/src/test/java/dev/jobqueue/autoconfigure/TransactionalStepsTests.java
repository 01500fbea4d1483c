package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.Job;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.JobStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Transactional steps in a Spring application: with the queue on the application's
 * DataSource, a step's own writes and its record commit or roll back together; with a
 * DataSource of its own, the step is refused, saying why.
 */
class TransactionalStepsTests {

	@TempDir
	Path dir;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class))
		.withUserConfiguration(Ledger.class)
		.withPropertyValues("jobqueue.worker.poll-interval=50ms", "jobqueue.retry.initial-backoff=10ms",
				"jobqueue.retry.max-backoff=10ms");

	private ApplicationContextRunner shared() {
		return this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:sqlite:" + this.dir.resolve("app.db"),
					"spring.datasource.hikari.data-source-properties.journal_mode=WAL",
					"spring.datasource.hikari.data-source-properties.foreign_keys=true",
					"spring.datasource.hikari.data-source-properties.busy_timeout=5000",
					"spring.datasource.hikari.data-source-properties.transaction_mode=IMMEDIATE");
	}

	private static Job awaitFinished(JobQueue queue, long id) {
		await().atMost(Duration.ofSeconds(20))
			.until(() -> Set.of(JobStatus.SUCCEEDED, JobStatus.FAILED).contains(queue.find(id).orElseThrow().status()));
		return queue.find(id).orElseThrow();
	}

	@Test
	void aStepsWritesCommitWithItsRecordAndRollBackWithoutIt() {
		shared().run((context) -> {
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			jdbc.execute("CREATE TABLE ledger (job_id INTEGER NOT NULL, entry TEXT NOT NULL)");
			JobQueue queue = context.getBean(JobQueue.class);
			// The first run writes its entry and then fails inside the step: both roll
			// back. The second writes it and records the step; the third only replays it.
			long id = queue.enqueue(JobRequest.of("book", 3).maxAttempts(5));

			Job job = awaitFinished(queue, id);

			assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(jdbc.queryForList("SELECT entry FROM ledger WHERE job_id = ?", String.class, id))
				.containsExactly("entry of attempt 2");
			assertThat(context.getBean(JobStore.class).steps(id)).singleElement()
				.satisfies((step) -> assertThat(step.attempt()).isEqualTo(2));
			assertThat(context.getBean(Ledger.class).entriesWritten).hasValue(2);
		});
	}

	@Test
	void aRunThatLostItsLeaseRollsItsStepsWritesBack() {
		shared().run((context) -> {
			JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			jdbc.execute("CREATE TABLE ledger (job_id INTEGER NOT NULL, entry TEXT NOT NULL)");
			JobQueue queue = context.getBean(JobQueue.class);

			long id = queue.enqueue(JobRequest.of("book", -1));

			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(context.getBean(Ledger.class).refused).hasValue(1));
			assertThat(context.getBean(Ledger.class).entriesWritten).hasValue(1);
			assertThat(jdbc.queryForObject("SELECT count(*) FROM ledger", Integer.class)).isZero();
			assertThat(context.getBean(JobStore.class).steps(id)).isEmpty();
		});
	}

	@Test
	void aQueueOnADataSourceOfItsOwnRefusesTransactionalStepsSayingWhy() {
		this.contextRunner.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db"))
			.run((context) -> {
				JobQueue queue = context.getBean(JobQueue.class);
				long id = queue.enqueue("book", 1);

				Job job = awaitFinished(queue, id);

				assertThat(job.status()).isEqualTo(JobStatus.FAILED);
				assertThat(job.errorCode()).isEqualTo(ErrorCodes.STEP_TRANSACTION);
				assertThat(context.getBean(Ledger.class).entriesWritten).hasValue(0);
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Ledger {

		final AtomicInteger entriesWritten = new AtomicInteger();

		final AtomicInteger refused = new AtomicInteger();

		@Bean
		LedgerHandler ledgerHandler(ObjectProvider<DataSource> dataSource) {
			return new LedgerHandler(this, dataSource);
		}

	}

	static class LedgerHandler {

		private final Ledger ledger;

		private final ObjectProvider<DataSource> dataSource;

		LedgerHandler(Ledger ledger, ObjectProvider<DataSource> dataSource) {
			this.ledger = ledger;
			this.dataSource = dataSource;
		}

		/**
		 * Payload: the attempts that fail inside the step (n fails attempts below n), or
		 * -1 to take the job from this run before the step records.
		 */
		@JobHandler(value = "book", maxAttempts = 5)
		void book(int failUntil, JobContext context) {
			DataSource source = this.dataSource.getIfAvailable();
			JdbcTemplate jdbc = (source != null) ? new JdbcTemplate(source) : null;
			if (failUntil < 0) {
				// As if the lease ran out and another worker claimed the job.
				jdbc.update("UPDATE jobs SET runs = runs + 1 WHERE id = ?", context.jobId());
			}
			try {
				context.transactionalStep("book", () -> {
					this.ledger.entriesWritten.incrementAndGet();
					jdbc.update("INSERT INTO ledger (job_id, entry) VALUES (?, ?)", context.jobId(),
							"entry of attempt " + context.attempt());
					if (context.attempt() < failUntil - 1) {
						throw new IllegalStateException("the ledger is busy");
					}
				});
			}
			catch (IllegalStateException ex) {
				if (failUntil < 0) {
					this.ledger.refused.incrementAndGet();
				}
				throw ex;
			}
			if (context.attempt() < failUntil) {
				// After the step: it is not done again.
				throw new IllegalStateException("the warehouse is down");
			}
		}

	}

}
