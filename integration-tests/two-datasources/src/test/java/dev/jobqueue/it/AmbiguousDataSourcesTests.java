package dev.jobqueue.it;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Two DataSources, neither primary nor marked for the queue, and no queue URL: start-up
 * says what to choose.
 */
class AmbiguousDataSourcesTests {

	@Test
	void failsStartUpListingTheDataSources() {
		assertThatException()
			.isThrownBy(() -> new SpringApplicationBuilder(TwoUnmarkedDataSources.class).web(WebApplicationType.NONE)
				.run()
				.close())
			.havingRootCause()
			.withMessageContaining("2 DataSource beans [reports, billing]")
			.withMessageContaining("@JobQueueDataSource")
			.withMessageContaining("jobqueue.datasource.url");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class TwoUnmarkedDataSources {

		@Bean
		HikariDataSource reports() {
			return DataSourceBuilder.create().type(HikariDataSource.class).url("jdbc:h2:mem:reports").build();
		}

		@Bean
		HikariDataSource billing() {
			return DataSourceBuilder.create().type(HikariDataSource.class).url("jdbc:h2:mem:billing").build();
		}

	}

}
