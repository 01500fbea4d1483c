package dev.jobqueue.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.actuate.QueueHealthIndicator;
import dev.jobqueue.autoconfigure.actuate.QueueHealthAutoConfiguration;
import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.postgresql.PostgresStorage;
import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;
import dev.jobqueue.views.QueueSnapshot;
import dev.jobqueue.views.QueueViews;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue on PostgreSQL chosen by configuration alone: its own pool from
 * {@code jobqueue.datasource.url}, or the application's PostgreSQL DataSource, whose
 * transactions enqueue joins. Each test gets a database of its own.
 */
@ExtendWith(PostgresServer.class)
class PostgresAutoConfigurationTests {

	private String database;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class))
		.withPropertyValues("jobqueue.worker.poll-interval=10s");

	@BeforeEach
	void createDatabase() {
		this.database = PostgresTestDatabase.createDatabase();
	}

	@AfterEach
	void dropDatabase() {
		PostgresTestDatabase.dropDatabase(this.database);
	}

	private String url() {
		return PostgresServer.urlOf(this.database);
	}

	@Test
	void ownUrlPutsTheQueueOnPostgresqlInTheConfiguredSchemaAndRunsJobs() {
		this.contextRunner.withUserConfiguration(Handlers.class)
			.withPropertyValues("jobqueue.datasource.url=" + url(), "jobqueue.postgresql.schema=jobs_schema")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(QueueStorage.class)).isInstanceOf(PostgresStorage.class);
				PostgresStorage storage = context.getBean(PostgresStorage.class);
				assertThat(storage.tables().schema()).isEqualTo("jobs_schema");
				await().atMost(Duration.ofSeconds(10)).until(() -> storage.notifications().listening());
				long id = context.getBean(JobQueue.class).enqueue("greet", new Greeting("Ada"));
				// The worker polls every 10 s: the job starting sooner is the
				// notification's doing.
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(context.getBean(Handlers.class).greeted).containsExactly("Ada"));
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(QueueDataSource.class).dataSource());
				await().atMost(Duration.ofSeconds(5))
					.until(() -> jdbc.queryForObject("SELECT status FROM jobs_schema.jobs WHERE id = ?", String.class,
							id), "succeeded"::equals);
				QueueSnapshot.StorageState storageState = context.getBean(QueueViews.class)
					.snapshot(Instant.now(), context.getBean(QueueProperties.class).snapshotSettings())
					.storage();
				assertThat(storageState.store()).isEqualTo("postgresql");
				assertThat(storageState.databaseBytes()).isPositive();
				assertThat(storageState.details()).containsEntry("schema", "jobs_schema");
				assertThat(List.copyOf(((Map<?, ?>) storageState.details().get("tables")).keySet())).asString()
					.contains("jobs", "job_attempts");
				assertThat((Map<?, ?>) storageState.details().get("connections")).isNotEmpty();
			});
	}

	@Test
	void sharesTheApplicationsPostgresqlDataSourceAndEnqueueJoinsItsTransactions() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withUserConfiguration(Handlers.class)
			.withPropertyValues("spring.datasource.url=" + url())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				QueueDataSource queueDataSource = context.getBean(QueueDataSource.class);
				assertThat(queueDataSource.isShared()).isTrue();
				assertThat(queueDataSource.store().name()).isEqualTo("PostgreSQL");
				assertThat(queueDataSource.dataSource()).isSameAs(context.getBean(DataSource.class));
				JobQueue queue = context.getBean(JobQueue.class);
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				jdbc.execute("CREATE TABLE orders (id bigint PRIMARY KEY, job_id bigint)");
				TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
				transaction.executeWithoutResult((status) -> {
					long job = queue.enqueue("greet", new Greeting("rolled back"));
					jdbc.update("INSERT INTO orders VALUES (1, ?)", job);
					status.setRollbackOnly();
				});
				transaction.executeWithoutResult((status) -> {
					long job = queue.enqueue("greet", new Greeting("committed"));
					jdbc.update("INSERT INTO orders VALUES (2, ?)", job);
				});
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(context.getBean(Handlers.class).greeted).contains("committed"));
				assertThat(jdbc.queryForList("SELECT id FROM orders", Long.class)).containsExactly(2L);
				assertThat(jdbc.queryForObject("SELECT count(*) FROM jobs", Long.class)).isOne();
				assertThat(context.getBean(Handlers.class).greeted).containsExactly("committed");
			});
	}

	@Test
	void onTheApplicationsPostgresqlDataSourceATransactionalStepsWritesCommitWithItsRecordOnly() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withUserConfiguration(TransactionalStepsTests.Ledger.class)
			.withPropertyValues("spring.datasource.url=" + url(), "jobqueue.worker.poll-interval=50ms",
					"jobqueue.retry.initial-backoff=10ms", "jobqueue.retry.max-backoff=10ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				jdbc.execute("CREATE TABLE ledger (job_id bigint NOT NULL, entry text NOT NULL)");
				JobQueue queue = context.getBean(JobQueue.class);
				// Attempt 1 fails inside the step (its entry rolls back), attempt 2
				// records
				// it and fails after, attempt 3 replays it.
				long id = queue.enqueue(dev.jobqueue.JobRequest.of("book", 3).maxAttempts(5));

				await().atMost(Duration.ofSeconds(20))
					.until(() -> queue.find(id).orElseThrow().status() == dev.jobqueue.JobStatus.SUCCEEDED);
				assertThat(jdbc.queryForList("SELECT entry FROM ledger WHERE job_id = ?", String.class, id))
					.containsExactly("entry of attempt 2");
				assertThat(context.getBean(dev.jobqueue.core.store.JobStore.class).steps(id)).singleElement()
					.satisfies((step) -> assertThat(step.attempt()).isEqualTo(2));
			});
	}

	@Test
	void onTheApplicationsPostgresqlDataSourceCancelAndPauseJoinItsTransactions() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=" + url(), "jobqueue.worker.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JobQueue queue = context.getBean(JobQueue.class);
				long job = queue.enqueue("greet", new Greeting("held"));
				TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
				transaction.executeWithoutResult((status) -> {
					assertThat(queue.cancel(job)).isTrue();
					assertThat(queue.pause("greet")).isTrue();
					status.setRollbackOnly();
				});
				assertThat(queue.find(job)).hasValueSatisfying(
						(found) -> assertThat(found.status()).isEqualTo(dev.jobqueue.JobStatus.PENDING));
				assertThat(queue.pausedTypes()).isEmpty();
				transaction.executeWithoutResult((status) -> assertThat(queue.cancel(job)).isTrue());
				assertThat(queue.find(job)).hasValueSatisfying(
						(found) -> assertThat(found.status()).isEqualTo(dev.jobqueue.JobStatus.CANCELLED));
			});
	}

	@Test
	void usesThePostgresqlDataSourceMarkedForTheQueue() {
		this.contextRunner.withUserConfiguration(TwoDataSources.class)
			.withPropertyValues("test.url=" + url())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				QueueDataSource queueDataSource = context.getBean(QueueDataSource.class);
				assertThat(queueDataSource.store().name()).isEqualTo("PostgreSQL");
				assertThat(queueDataSource.dataSource()).isSameAs(context.getBean("jobsDataSource"));
			});
	}

	@Test
	void aPostgresqlUrlWithoutTheDriverFailsStartUpNamingTheDependency() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.postgresql"))
			.withPropertyValues("jobqueue.datasource.url=" + url())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("PostgreSQL JDBC driver is not on the classpath")
				.hasMessageContaining("org.postgresql:postgresql"));
	}

	@Test
	void aPostgresqlUrlWithoutFlywaysPostgresqlSupportFailsStartUpNamingTheDependency() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.flywaydb.database.postgresql"))
			.withPropertyValues("jobqueue.datasource.url=" + url())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("org.flywaydb:flyway-database-postgresql"));
	}

	@Test
	void aServerThatDoesNotAnswerAtStartUpFailsItSayingWhatToCheck() {
		this.contextRunner
			.withPropertyValues("jobqueue.datasource.url=jdbc:postgresql://127.0.0.1:1/none?user=postgres",
					"jobqueue.datasource.connection-timeout=1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("127.0.0.1:1")
				.hasStackTraceContaining("Check that the server is running and reachable"));
	}

	@Test
	void aServerThatGoesAwayLaterMakesHealthDownAndTheWorkerCarriesOnWhenItIsBack() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(QueueHealthAutoConfiguration.class))
			.withUserConfiguration(Handlers.class)
			.withPropertyValues("jobqueue.datasource.url=" + url(), "jobqueue.datasource.connection-timeout=1s",
					"jobqueue.worker.poll-interval=200ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				QueueHealthIndicator health = context.getBean(QueueHealthIndicator.class);
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				// The database refuses new connections and every open one is cut: to the
				// queue, the server is gone.
				admin("ALTER DATABASE " + this.database + " ALLOW_CONNECTIONS false");
				admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + this.database + "'");
				await().atMost(Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(health.health().getStatus()).isEqualTo(Status.DOWN));
				admin("ALTER DATABASE " + this.database + " ALLOW_CONNECTIONS true");
				await().atMost(Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(health.health().getStatus()).isEqualTo(Status.UP));
				context.getBean(JobQueue.class).enqueue("greet", new Greeting("after the outage"));
				await().atMost(Duration.ofSeconds(20))
					.untilAsserted(
							() -> assertThat(context.getBean(Handlers.class).greeted).contains("after the outage"));
			});
	}

	private static void admin(String sql) {
		try (var connection = PostgresServer.connectAdmin(); var statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

	record Greeting(String name) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Handlers {

		final List<String> greeted = new CopyOnWriteArrayList<>();

		@JobHandler("greet")
		public void greet(Greeting greeting, JobContext context) {
			this.greeted.add(greeting.name());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoDataSources {

		@Bean
		DataSource applicationDataSource() {
			return new org.springframework.jdbc.datasource.SimpleDriverDataSource(new org.h2.Driver(),
					"jdbc:h2:mem:app");
		}

		@Bean
		@JobQueueDataSource
		DataSource jobsDataSource(org.springframework.core.env.Environment environment) {
			com.zaxxer.hikari.HikariDataSource dataSource = new com.zaxxer.hikari.HikariDataSource();
			dataSource.setJdbcUrl(environment.getProperty("test.url"));
			return dataSource;
		}

	}

}
