package dev.jobqueue.autoconfigure;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
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
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.actuate.QueueHealthIndicator;
import dev.jobqueue.autoconfigure.actuate.QueueHealthAutoConfiguration;
import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.mysql.MysqlStorage;
import dev.jobqueue.mysql.testing.MariaDbServer;
import dev.jobqueue.mysql.testing.MysqlTestDatabase;
import dev.jobqueue.views.QueueSnapshot;
import dev.jobqueue.views.QueueViews;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue on MariaDB chosen by configuration alone: its own pool from
 * {@code jobqueue.datasource.url}, or the application's DataSource, whose transactions
 * enqueue joins. Each test gets a database of its own.
 */
@ExtendWith(MariaDbServer.class)
class MysqlAutoConfigurationTests {

	private String database;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class))
		.withPropertyValues("jobqueue.worker.poll-interval=10s");

	@BeforeEach
	void createDatabase() {
		this.database = MysqlTestDatabase.createDatabase();
	}

	@AfterEach
	void dropDatabase() {
		MysqlTestDatabase.dropDatabase(this.database);
	}

	private String url() {
		return MariaDbServer.urlOf(this.database);
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void theStartUpLogNamesTheServerAsItIs(CapturedOutput output) throws SQLException {
		String version;
		try (Connection connection = MariaDbServer.connectAdmin();
				ResultSet rows = connection.createStatement().executeQuery("SELECT VERSION()")) {
			rows.next();
			version = rows.getString(1);
		}
		assertThat(version).contains("MariaDB");
		this.contextRunner.withPropertyValues("jobqueue.datasource.url=" + url())
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output)
			.contains("Job queue on MariaDB " + version.substring(0, version.indexOf('-')) + ": " + url()
					+ " (its own pool, from jobqueue.datasource.url)")
			.doesNotContain("Job queue on MySQL");
	}

	@Test
	void ownUrlPutsTheQueueOnMariadbAndTheWorkerOfTheSameProcessStartsAJobAtOnce() {
		this.contextRunner.withUserConfiguration(Handlers.class)
			.withPropertyValues("jobqueue.datasource.url=" + url(), "jobqueue.table-prefix=jq_")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(QueueStorage.class)).isInstanceOf(MysqlStorage.class);
				context.getBean(JobQueue.class).enqueue("greet", new Greeting("Ada"));
				// The worker polls every 10 s: the job starting sooner is the local
				// wake-up's doing (MySQL has no NOTIFY for other processes).
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(context.getBean(Handlers.class).greeted).containsExactly("Ada"));
				QueueSnapshot.StorageState storage = context.getBean(QueueViews.class)
					.snapshot(Instant.now(), context.getBean(QueueProperties.class).snapshotSettings())
					.storage();
				assertThat(storage.store()).isEqualTo("mysql");
				assertThat(List.copyOf(((Map<?, ?>) storage.details().get("tables")).keySet())).asString()
					.contains("jq_jobs", "jq_job_attempts");
			});
	}

	@Test
	void sharesTheApplicationsMariadbDataSourceAndEnqueueJoinsItsTransactions() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withUserConfiguration(Handlers.class)
			.withPropertyValues("spring.datasource.url=" + url())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				QueueDataSource queueDataSource = context.getBean(QueueDataSource.class);
				assertThat(queueDataSource.isShared()).isTrue();
				assertThat(queueDataSource.store().name()).isEqualTo("MySQL");
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
	void aMariadbUrlWithoutTheDriverFailsStartUpNamingTheDependency() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.mariadb"))
			.withPropertyValues("jobqueue.datasource.url=" + url())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("MariaDB JDBC driver is not on the classpath")
				.hasMessageContaining("org.mariadb.jdbc:mariadb-java-client"));
	}

	@Test
	void aMysqlUrlWithoutConnectorJFailsStartUpNamingTheDependency() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("com.mysql"))
			.withPropertyValues("jobqueue.datasource.url=" + url().replace("jdbc:mariadb:", "jdbc:mysql:"))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("MySQL Connector/J is not on the classpath")
				.hasMessageContaining("com.mysql:mysql-connector-j"));
	}

	@Test
	void aMariadbUrlWithoutFlywaysMysqlSupportFailsStartUpNamingTheDependency() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.flywaydb.database.mysql"))
			.withPropertyValues("jobqueue.datasource.url=" + url())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("org.flywaydb:flyway-mysql"));
	}

	@Test
	void aServerThatDoesNotAnswerAtStartUpFailsItSayingWhatToCheck() {
		this.contextRunner
			.withPropertyValues("jobqueue.datasource.url=jdbc:mariadb://127.0.0.1:1/none?user=root",
					"jobqueue.datasource.connection-timeout=1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("127.0.0.1:1")
				.hasStackTraceContaining("Check that the server is running and reachable"));
	}

	/**
	 * The server goes away for the queue: its user is locked out and its connections
	 * killed ({@code KILL}), the shared server itself keeps running.
	 */
	@Test
	void aServerThatGoesAwayLaterMakesHealthDownAndTheWorkerCarriesOnWhenItIsBack() {
		String user = "jq_" + this.database.substring(this.database.length() - 5);
		admin("CREATE USER '" + user + "'@'%'");
		admin("GRANT ALL ON " + this.database + ".* TO '" + user + "'@'%'");
		try {
			this.contextRunner.withConfiguration(AutoConfigurations.of(QueueHealthAutoConfiguration.class))
				.withUserConfiguration(Handlers.class)
				.withPropertyValues("jobqueue.datasource.url=" + url().replaceFirst("\\?.*", ""),
						"jobqueue.datasource.username=" + user, "jobqueue.datasource.connection-timeout=1s",
						"jobqueue.worker.poll-interval=200ms")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					QueueHealthIndicator health = context.getBean(QueueHealthIndicator.class);
					assertThat(health.health().getStatus()).isEqualTo(Status.UP);
					admin("ALTER USER '" + user + "'@'%' ACCOUNT LOCK");
					killConnectionsOf(user);
					await().atMost(Duration.ofSeconds(20))
						.untilAsserted(() -> assertThat(health.health().getStatus()).isEqualTo(Status.DOWN));
					admin("ALTER USER '" + user + "'@'%' ACCOUNT UNLOCK");
					await().atMost(Duration.ofSeconds(20))
						.untilAsserted(() -> assertThat(health.health().getStatus()).isEqualTo(Status.UP));
					context.getBean(JobQueue.class).enqueue("greet", new Greeting("after the outage"));
					await().atMost(Duration.ofSeconds(20))
						.untilAsserted(
								() -> assertThat(context.getBean(Handlers.class).greeted).contains("after the outage"));
				});
		}
		finally {
			admin("DROP USER '" + user + "'@'%'");
		}
	}

	private static void killConnectionsOf(String user) {
		List<Long> ids = new CopyOnWriteArrayList<>();
		try (var connection = MariaDbServer.connectAdmin();
				var select = connection
					.prepareStatement("SELECT id FROM information_schema.processlist WHERE user = ?")) {
			select.setString(1, user);
			try (var rows = select.executeQuery()) {
				while (rows.next()) {
					ids.add(rows.getLong(1));
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		assertThat(ids).isNotEmpty();
		ids.forEach((id) -> admin("KILL " + id));
	}

	private static void admin(String sql) {
		try (var connection = MariaDbServer.connectAdmin(); var statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
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

}
