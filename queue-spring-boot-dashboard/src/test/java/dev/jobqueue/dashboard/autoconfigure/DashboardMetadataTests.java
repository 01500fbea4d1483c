package dev.jobqueue.dashboard.autoconfigure;

import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard module's own metadata, written by the annotation processors at its build:
 * what an IDE offers for {@code jobqueue.dashboard.*}, and the conditions Boot reads to
 * skip the auto-configuration without loading its class.
 */
class DashboardMetadataTests {

	@Test
	void configurationMetadataHasTheDashboardsSettingsAndNoValuesSettingOfItsOwn() throws Exception {
		JsonNode metadata = dashboardMetadata();
		assertThat(property(metadata, "jobqueue.dashboard.enabled").get("defaultValue").asBoolean()).isFalse();
		assertThat(property(metadata, "jobqueue.dashboard.read-only").get("defaultValue").asBoolean()).isTrue();
		assertThat(property(metadata, "jobqueue.dashboard.path").get("defaultValue").asString()).isEqualTo("/jobqueue");
		assertThat(property(metadata, "jobqueue.dashboard.refresh-interval")).isNotNull();
		// The dashboard follows the endpoint's show-values and roles: no second setting
		// of its own.
		assertThat(property(metadata, "jobqueue.dashboard.show-values")).isNull();
		assertThat(property(metadata, "jobqueue.dashboard.roles")).isNull();
		// The queue's settings stay in the auto-configuration module's metadata.
		assertThat(property(metadata, "jobqueue.enabled")).isNull();
	}

	@Test
	void autoConfigurationConditionsAreWrittenToMetadata() throws Exception {
		Properties metadata = new Properties();
		for (URL url : Collections.list(DashboardMetadataTests.class.getClassLoader()
			.getResources("META-INF/spring-autoconfigure-metadata.properties"))) {
			try (InputStream in = url.openStream()) {
				metadata.load(in);
			}
		}
		assertThat(metadata.getProperty(QueueDashboardAutoConfiguration.class.getName() + ".ConditionalOnClass"))
			.contains("org.springframework.web.servlet.function.RouterFunction");
		assertThat(metadata.getProperty(QueueDashboardAutoConfiguration.class.getName() + ".AutoConfigureAfter"))
			.contains("dev.jobqueue.autoconfigure.QueueAutoConfiguration");
	}

	private static JsonNode dashboardMetadata() throws Exception {
		for (URL url : Collections.list(DashboardMetadataTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream in = url.openStream()) {
				JsonNode metadata = JsonMapper.builder().build().readTree(in);
				if (property(metadata, "jobqueue.dashboard.enabled") != null) {
					return metadata;
				}
			}
		}
		throw new AssertionError("No configuration metadata of the dashboard on the classpath");
	}

	private static JsonNode property(JsonNode metadata, String name) {
		for (JsonNode property : metadata.get("properties")) {
			if (property.get("name").asString().equals(name)) {
				return property;
			}
		}
		return null;
	}

}
