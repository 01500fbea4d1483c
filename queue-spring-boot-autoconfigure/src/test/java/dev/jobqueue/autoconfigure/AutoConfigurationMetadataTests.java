package dev.jobqueue.autoconfigure;

import java.io.InputStream;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configuration processor writes the conditions of our auto-configurations to
 * metadata, so Boot can skip them at start-up without loading their classes.
 */
class AutoConfigurationMetadataTests {

	@Test
	void conditionsAreWrittenToMetadata() throws Exception {
		Properties metadata = new Properties();
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-autoconfigure-metadata.properties")) {
			assertThat(in).as("META-INF/spring-autoconfigure-metadata.properties").isNotNull();
			metadata.load(in);
		}
		assertThat(metadata.getProperty("dev.jobqueue.autoconfigure.QueueAutoConfiguration.ConditionalOnClass"))
			.contains("dev.jobqueue.jdbc.StoreProviders");
		assertThat(metadata
			.getProperty("dev.jobqueue.autoconfigure.metrics.QueueMetricsAutoConfiguration.ConditionalOnClass"))
			.contains("io.micrometer.core.instrument.MeterRegistry");
	}

}
