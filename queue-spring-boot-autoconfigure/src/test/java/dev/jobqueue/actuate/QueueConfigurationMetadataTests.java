package dev.jobqueue.actuate;

import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an IDE offers for the queue's actuator and handler settings: the generated
 * metadata, merged with our additions.
 */
class QueueConfigurationMetadataTests {

	@Test
	void endpointAndHealthKeysWithTheirValues() throws Exception {
		JsonNode metadata = ourMetadata();
		assertThat(property(metadata, "management.endpoint.jobqueue.access").get("defaultValue").asString())
			.isEqualTo("read_only");
		assertThat(property(metadata, "management.endpoint.jobqueue.show-values").get("type").asString())
			.isEqualTo("org.springframework.boot.actuate.endpoint.Show");
		assertThat(property(metadata, "management.endpoint.jobqueue.roles")).isNotNull();
		// The dashboard's settings are its own module's.
		assertThat(property(metadata, "jobqueue.dashboard.enabled")).isNull();
		assertThat(property(metadata, "management.health.jobqueue.enabled").get("defaultValue").asBoolean()).isTrue();
		assertThat(hintValues(metadata, "jobqueue.observability.degraded-status")).containsExactly("DEGRADED",
				"OUT_OF_SERVICE", "DOWN");
		assertThat(hintValues(metadata, "jobqueue.datasource.synchronous")).containsExactly("NORMAL", "FULL");
		assertThat(property(metadata, "jobqueue.observability.degraded-status").get("defaultValue").asString())
			.isEqualTo("DEGRADED");
	}

	@Test
	void handlerSettingsByTypeWithTheirValueTypeAndExamples() throws Exception {
		JsonNode handlers = property(ourMetadata(), "jobqueue.handlers");
		// An IDE completes the keys below a type from the value type's properties.
		assertThat(handlers.get("type").asString())
			.isEqualTo("java.util.Map<java.lang.String,dev.jobqueue.autoconfigure.QueueProperties$Handler>");
		assertThat(handlers.get("description").asString()).contains("rate-limit", "key-rate-limit", "key-concurrency",
				"ordered", "block-on-failure", "100/1s", "handlers.charge.rate-limit=100/1s", "handlers[mail.send]");
	}

	private static JsonNode ourMetadata() throws Exception {
		for (URL url : Collections.list(QueueConfigurationMetadataTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream in = url.openStream()) {
				JsonNode metadata = JsonMapper.builder().build().readTree(in);
				if (property(metadata, "jobqueue.enabled") != null) {
					return metadata;
				}
			}
		}
		throw new AssertionError("No configuration metadata of the queue on the classpath");
	}

	private static JsonNode property(JsonNode metadata, String name) {
		for (JsonNode property : metadata.get("properties")) {
			if (property.get("name").asString().equals(name)) {
				return property;
			}
		}
		return null;
	}

	private static List<String> hintValues(JsonNode metadata, String name) {
		List<String> values = new ArrayList<>();
		for (JsonNode hint : metadata.get("hints")) {
			if (hint.get("name").asString().equals(name)) {
				hint.get("values").forEach((value) -> values.add(value.get("value").asString()));
			}
		}
		return values;
	}

}
