package dev.jobqueue.autoconfigure;

import java.nio.file.Path;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue's own pool, in applications started with every auto-configuration on: in
 * Hikari's meters, and nowhere an application's {@code DataSource} goes (its injection
 * points, {@code JdbcTemplate}, the transaction manager, Boot's {@code db} health). The
 * pool is deliberately no bean: as a {@code defaultCandidate = false} DataSource bean it
 * was a second component of {@code db} health and the answer of
 * {@code ObjectProvider<DataSource>.getIfAvailable()} in an application without a
 * DataSource.
 */
class QueuePoolTests {

	@TempDir
	Path dir;

	@Test
	void besideAnApplicationDataSourceThePoolIsMeteredAndOnlyTheApplicationsIsInDbHealth() {
		try (ConfigurableApplicationContext context = start()) {
			assertThat(context.getBean(DataSource.class)).isNotSameAs(pool(context));
			assertThat(context.getBean(JdbcTemplate.class).getDataSource()).isSameAs(context.getBean(DataSource.class));
			assertPoolMetered(context);
			HealthEndpoint health = context.getBean(HealthEndpoint.class);
			assertThat(health.healthForPath("db")).isNotNull();
			assertThat(health.healthForPath("db", "jobQueuePool")).isNull();
			assertThat(context.getBeansOfType(DataSource.class)).containsOnlyKeys("dataSource");
			assertThat(health.healthForPath("jobqueue")).isNotNull();
		}
	}

	@Test
	void withoutAnApplicationDataSourceThePoolIsMeteredAndTakenForNoneOfItsUses() {
		try (ConfigurableApplicationContext context = start(
				"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")) {
			assertThat(context.getBeanProvider(DataSource.class).getIfAvailable()).isNull();
			assertThat(context.getBeanNamesForType(JdbcTemplate.class)).isEmpty();
			assertThat(context.getBeanNamesForType(TransactionManager.class)).isEmpty();
			assertPoolMetered(context);
			assertThat(context.getBean(HealthEndpoint.class).healthForPath("db")).isNull();
		}
	}

	@Test
	void aQueueSharingTheApplicationsDataSourceAddsNoPool() {
		try (ConfigurableApplicationContext context = start(
				"spring.datasource.url=jdbc:sqlite:" + this.dir.resolve("app.db"),
				"spring.datasource.hikari.data-source-properties.journal_mode=WAL",
				"spring.datasource.hikari.data-source-properties.foreign_keys=true",
				"spring.datasource.hikari.data-source-properties.transaction_mode=IMMEDIATE",
				"jobqueue.datasource.url=")) {
			assertThat(context.getBean(QueueDataSource.class).isShared()).isTrue();
			assertThat(context.getBeansOfType(DataSource.class)).containsOnlyKeys("dataSource");
			assertThat(
					context.getBean(MeterRegistry.class).find("hikaricp.connections").tag("pool", "jobqueue").gauge())
				.isNull();
		}
	}

	private ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(Application.class)
			.properties("spring.main.web-application-type=none", "spring.main.banner-mode=off",
					"jobqueue.worker.auto-startup=false", "management.health.db.enabled=true",
					"jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("jobs.db"))
			.properties(properties)
			.run();
	}

	private static DataSource pool(ConfigurableApplicationContext context) {
		return context.getBean(QueueDataSource.class).dataSource();
	}

	private static void assertPoolMetered(ConfigurableApplicationContext context) {
		assertThat(context.getBean(MeterRegistry.class).find("hikaricp.connections").tag("pool", "jobqueue").gauge())
			.isNotNull();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
