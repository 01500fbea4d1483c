package dev.jobqueue.it.mariadb;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;

/**
 * An application whose data lives in MariaDB
 * ({@code spring.datasource.url=jdbc:mariadb:...}): the queue keeps its jobs in the same
 * database, and a job enqueued in the application's transaction is written in that
 * transaction, so it exists (and runs) if and only if the order was committed.
 */
@SpringBootApplication
public class ShopApplication {

	public static void main(String[] args) {
		SpringApplication.run(ShopApplication.class, args);
	}

	public record Shipment(String orderId) {
	}

	@Service
	public static class Orders {

		/**
		 * Every job id enqueued, including those of transactions that then rolled back.
		 */
		private final List<Long> enqueued = new CopyOnWriteArrayList<>();

		private final JdbcClient jdbc;

		private final JobQueue queue;

		Orders(JdbcClient jdbc, JobQueue queue) {
			this.jdbc = jdbc;
			this.queue = queue;
		}

		@Transactional
		public long place(String item, boolean paymentDeclined) {
			String orderId = UUID.randomUUID().toString();
			this.jdbc.sql("INSERT INTO orders (id, item) VALUES (?, ?)").params(orderId, item).update();
			long jobId = this.queue.enqueue(JobRequest.of("ship", new Shipment(orderId)));
			this.enqueued.add(jobId);
			if (paymentDeclined) {
				throw new IllegalStateException("payment declined");
			}
			return jobId;
		}

		public List<Long> enqueued() {
			return List.copyOf(this.enqueued);
		}

	}

	@Component
	public static class Shipping {

		private final JdbcClient jdbc;

		Shipping(JdbcClient jdbc) {
			this.jdbc = jdbc;
		}

		/**
		 * Fails when the order is not (yet) committed, so a job that ran too early shows
		 * up as failed.
		 */
		@JobHandler(value = "ship", maxAttempts = 1)
		String ship(Shipment shipment) {
			long orders = this.jdbc.sql("SELECT count(*) FROM orders WHERE id = ?")
				.param(shipment.orderId())
				.query(Long.class)
				.single();
			if (orders == 0) {
				throw new IllegalStateException("order " + shipment.orderId() + " is not in the database");
			}
			return "shipped " + shipment.orderId();
		}

	}

}
