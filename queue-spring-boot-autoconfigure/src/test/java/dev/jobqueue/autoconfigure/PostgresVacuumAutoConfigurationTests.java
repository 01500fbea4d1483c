package dev.jobqueue.autoconfigure;

import java.time.Duration;
import java.util.Map;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.jobqueue.actuate.QueueHealthIndicator;
import dev.jobqueue.autoconfigure.actuate.QueueHealthAutoConfiguration;
import dev.jobqueue.postgresql.PostgresStorage;
import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On a PostgreSQL server whose autovacuum leaves the queue's tables alone, the
 * housekeeping vacuums them by default, and says so; set to never, it warns in the log
 * and in the health details.
 */
@ExtendWith({ PostgresServer.class, OutputCaptureExtension.class })
class PostgresVacuumAutoConfigurationTests {

	private String database;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class,
				QueueRetentionAutoConfiguration.class, QueueHealthAutoConfiguration.class))
		.withPropertyValues("jobqueue.worker.poll-interval=10s", "jobqueue.retention.interval=1h");

	@BeforeEach
	void createDatabase() {
		this.database = PostgresTestDatabase.createDatabase();
	}

	@AfterEach
	void dropDatabase() {
		PostgresTestDatabase.dropDatabase(this.database);
	}

	@Test
	void byDefaultHousekeepingVacuumsTablesAutovacuumSkips(CapturedOutput output) {
		this.contextRunner.withPropertyValues("jobqueue.datasource.url=" + PostgresServer.urlOf(this.database))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(PostgresStorage.class).database().dataSource());
				jdbc.execute("ALTER TABLE jobs SET (autovacuum_enabled = off)");
				context.getBean(QueueHousekeeping.class).runOnce();
				await().atMost(Duration.ofSeconds(30))
					.until(() -> jdbc.queryForObject(
							"SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass",
							Long.class) > 0);
				assertThat(output).contains("the queue vacuums them itself after each housekeeping run");
				assertThat(health(context.getBean(QueueHealthIndicator.class))).doesNotContainKey("warnings");
			});
	}

	@Test
	void setToNeverItWarnsInTheLogAndTheHealthDetails(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("jobqueue.datasource.url=" + PostgresServer.urlOf(this.database),
					"jobqueue.retention.vacuum=never")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(PostgresStorage.class).database().dataSource());
				jdbc.execute("ALTER TABLE jobs SET (autovacuum_enabled = off)");
				context.getBean(QueueHousekeeping.class).runOnce();
				assertThat(output).contains("and jobqueue.retention.vacuum=never: every claim, outcome and delete "
						+ "leaves dead rows behind that nothing reclaims");
				Object warnings = health(context.getBean(QueueHealthIndicator.class)).get("warnings");
				assertThat(warnings).asInstanceOf(InstanceOfAssertFactories.LIST)
					.singleElement()
					.asString()
					.contains("jobs")
					.contains("set jobqueue.retention.vacuum=auto");
				assertThat(jdbc.queryForObject(
						"SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass", Long.class))
					.isZero();
			});
	}

	@Test
	void aVacuumSettingThatIsNoneOfTheThreeFailsStartUpNamingThem() {
		this.contextRunner
			.withPropertyValues("jobqueue.datasource.url=" + PostgresServer.urlOf(this.database),
					"jobqueue.retention.vacuum=sometimes")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("sometimes"));
	}

	private static Map<String, Object> health(QueueHealthIndicator indicator) {
		return indicator.health(true).getDetails();
	}

}
