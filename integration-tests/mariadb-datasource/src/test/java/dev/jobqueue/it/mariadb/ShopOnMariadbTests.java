package dev.jobqueue.it.mariadb;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.it.mariadb.ShopApplication.Orders;
import dev.jobqueue.mysql.testing.MariaDbServer;
import dev.jobqueue.mysql.testing.MysqlTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The application as a user runs it, on a database of its own on the test server: orders
 * and their shipping jobs commit or roll back together, from several threads at once,
 * while the worker runs the committed ones.
 */
@ExtendWith(MariaDbServer.class)
class ShopOnMariadbTests {

	private String database;

	private ConfigurableApplicationContext application;

	@BeforeEach
	void start() {
		this.database = MysqlTestDatabase.createDatabase();
		this.application = new SpringApplicationBuilder(ShopApplication.class)
			.properties("spring.datasource.url=" + MariaDbServer.urlOf(this.database))
			.run();
	}

	@AfterEach
	void stop() {
		if (this.application != null) {
			this.application.close();
		}
		MysqlTestDatabase.dropDatabase(this.database);
	}

	@Test
	void theQueueRunsWithoutSqlitesDriverOnTheClasspath() {
		assertThatExceptionOfType(ClassNotFoundException.class)
			.as("this application excludes org.xerial:sqlite-jdbc from the starter")
			.isThrownBy(() -> Class.forName("org.sqlite.JDBC", false, getClass().getClassLoader()));
		JobQueue queue = this.application.getBean(JobQueue.class);
		long id = this.application.getBean(Orders.class).place("no sqlite", false);
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(queue.find(id))
				.hasValueSatisfying((job) -> assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED)));
	}

	@Test
	void aJobRunsIfAndOnlyIfItsOrderCommits() {
		Orders orders = this.application.getBean(Orders.class);
		JobQueue queue = this.application.getBean(JobQueue.class);
		JdbcClient jdbc = this.application.getBean(JdbcClient.class);

		assertThatIllegalStateException().isThrownBy(() -> orders.place("declined", true));
		long rolledBack = orders.enqueued().get(0);
		assertThat(queue.find(rolledBack)).isEmpty();

		ConcurrentLinkedQueue<Long> committed = new ConcurrentLinkedQueue<>();
		List<CompletableFuture<Void>> threads = new ArrayList<>();
		for (int thread = 0; thread < 4; thread++) {
			int offset = thread;
			threads.add(CompletableFuture.runAsync(() -> IntStream.range(0, 50).forEach((i) -> {
				boolean declined = (i + offset) % 3 == 0;
				try {
					committed.add(orders.place("item " + i, declined));
				}
				catch (IllegalStateException ex) {
					assertThat(declined).isTrue();
				}
			})));
		}
		CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).join();

		await().atMost(Duration.ofSeconds(60))
			.until(() -> committed.stream()
				.allMatch((id) -> queue.find(id).orElseThrow().status() == JobStatus.SUCCEEDED));
		long orderRows = jdbc.sql("SELECT count(*) FROM orders").query(Long.class).single();
		long jobRows = jdbc.sql("SELECT count(*) FROM jobs").query(Long.class).single();
		assertThat(orderRows).isEqualTo(committed.size());
		assertThat(jobRows).isEqualTo(committed.size());
		List<Long> rolledBackIds = orders.enqueued().stream().filter((id) -> !committed.contains(id)).toList();
		assertThat(rolledBackIds).hasSize(1 + 4 * 50 - committed.size())
			.allSatisfy((id) -> assertThat(queue.find(id)).isEmpty());
	}

}
