package dev.jobqueue.it;

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.autoconfigure.JobQueueDataSource;

/**
 * An application with two DataSources: its orders in H2 (primary) and a SQLite file it
 * gives the queue with {@link JobQueueDataSource @JobQueueDataSource}.
 */
@SpringBootApplication
public class TwoDataSourcesApplication {

	public static void main(String[] args) {
		SpringApplication.run(TwoDataSourcesApplication.class, args);
	}

	@Bean
	@Primary
	@ConfigurationProperties("app.orders.datasource")
	HikariDataSource ordersDataSource() {
		return DataSourceBuilder.create().type(HikariDataSource.class).build();
	}

	@Bean
	@JobQueueDataSource
	@ConfigurationProperties("app.jobs.datasource")
	HikariDataSource jobsDataSource() {
		return DataSourceBuilder.create().type(HikariDataSource.class).build();
	}

	public record Shipment(String orderId) {
	}

	@Service
	public static class Orders {

		private final JdbcClient jdbc;

		private final JobQueue queue;

		private volatile long lastEnqueued;

		Orders(JdbcClient jdbc, JobQueue queue) {
			this.jdbc = jdbc;
			this.queue = queue;
		}

		/**
		 * An order in H2 and its shipment job, in a transaction on the primary (H2)
		 * DataSource.
		 */
		@Transactional
		public long place(String item, boolean paymentDeclined) {
			String orderId = UUID.randomUUID().toString();
			this.jdbc.sql("INSERT INTO orders (id, item) VALUES (?, ?)").params(orderId, item).update();
			this.lastEnqueued = this.queue.enqueue("ship", new Shipment(orderId));
			if (paymentDeclined) {
				throw new IllegalStateException("payment declined");
			}
			return this.lastEnqueued;
		}

		public long lastEnqueued() {
			return this.lastEnqueued;
		}

	}

	@Component
	static class Shipping {

		private final JdbcClient jdbc;

		Shipping(JdbcClient jdbc) {
			this.jdbc = jdbc;
		}

		@JobHandler(value = "ship", maxAttempts = 1)
		void ship(Shipment shipment) {
			if (this.jdbc.sql("SELECT count(*) FROM orders WHERE id = ?")
				.param(shipment.orderId())
				.query(Long.class)
				.single() == 0) {
				throw new IllegalStateException("order " + shipment.orderId() + " is not in the database");
			}
		}

	}

}
