package dev.jobqueue.docs;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration reference, docs/guide/configuration-reference.md, is what the
 * configuration metadata of the published modules (written by Spring Boot's configuration
 * processor from the properties' javadoc) generates: every {@code jobqueue.*} property
 * and the queue's {@code management.*} ones, with its type, default and description. A
 * property added, removed or described differently fails this test until the page is
 * regenerated, so the page cannot drift from the code.
 */
class ConfigurationReferenceTests {

	static final String PAGE = "docs/guide/configuration-reference.md";

	private static final Pattern PACKAGE = Pattern.compile("\\b(?:[a-z][a-z0-9_]*\\.)+(?=[A-Z])");

	@Test
	void theCheckedInReferenceIsWhatTheMetadataGenerates() throws IOException {
		Path repository = Path.of(System.getProperty("repository"));
		String generated = generate(metadata());
		Files.createDirectories(repository.resolve("docs/target"));
		Files.writeString(repository.resolve("docs/target/configuration-reference.md"), generated);
		Path page = repository.resolve(PAGE);
		if (System.getProperty("regenerate") != null) {
			Files.writeString(page, generated);
		}
		String checkedIn = Files.exists(page) ? Files.readString(page) : "";
		assertThat(checkedIn)
			.as("""
					%s differs from what the configuration metadata generates (docs/target/configuration-reference.md). \
					Regenerate it with
					  ./mvnw -B -pl docs -am test -Dtest=ConfigurationReferenceTests -Dsurefire.failIfNoSpecifiedTests=false -Dregenerate
					and commit it""",
					PAGE)
			.isEqualTo(generated);
	}

	@Test
	void everyQueuePropertyIsInTheReference() throws IOException {
		Map<String, JsonNode> properties = metadata();
		assertThat(properties).containsKeys("jobqueue.datasource.url", "jobqueue.worker.concurrency",
				"jobqueue.dashboard.enabled", "management.endpoint.jobqueue.show-values");
		String generated = generate(properties);
		for (String name : properties.keySet()) {
			assertThat(generated).contains("`" + name + "`");
		}
	}

	/**
	 * The queue's properties in every configuration metadata file on the classpath, by
	 * name.
	 */
	static Map<String, JsonNode> metadata() throws IOException {
		Map<String, JsonNode> properties = new TreeMap<>();
		JsonMapper mapper = JsonMapper.builder().build();
		List<URL> files = Collections.list(ConfigurationReferenceTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"));
		for (URL file : files) {
			try (InputStream in = file.openStream()) {
				for (JsonNode property : mapper.readTree(in).path("properties")) {
					String name = property.path("name").asString();
					if (name.startsWith("jobqueue.") || name.startsWith("management.endpoint.jobqueue.")
							|| name.startsWith("management.health.jobqueue.")) {
						properties.put(name, property);
					}
				}
			}
		}
		for (URL file : files) {
			try (InputStream in = file.openStream()) {
				for (JsonNode hint : mapper.readTree(in).path("hints")) {
					JsonNode property = properties.get(hint.path("name").asString());
					if (property != null && hint.path("values").size() > 0) {
						((tools.jackson.databind.node.ObjectNode) property).set("values", hint.path("values"));
					}
				}
			}
		}
		return properties;
	}

	static String generate(Map<String, JsonNode> properties) {
		StringBuilder page = new StringBuilder("""
				# Configuration reference

				Every property of the queue, generated from the configuration metadata of the published modules
				(`META-INF/spring-configuration-metadata.json`, written from the properties' javadoc by Spring Boot's
				configuration processor): do not edit this page by hand. `ConfigurationReferenceTests` in `docs/`
				fails when it differs from the metadata, and says how to regenerate it. What the settings mean
				together, and the per-handler and per-schedule keys under the maps, are on the
				[configuration](configuration.md) page.

				""");
		String section = null;
		for (Map.Entry<String, JsonNode> entry : properties.entrySet()) {
			String group = groupOf(entry.getKey());
			if (!group.equals(section)) {
				section = group;
				page.append("\n## `").append(group).append("`\n\n");
				page.append("| property | type | default | description |\n|---|---|---|---|\n");
			}
			JsonNode property = entry.getValue();
			page.append("| `")
				.append(entry.getKey())
				.append("` | ")
				.append(cell(PACKAGE.matcher(property.path("type").asString("")).replaceAll("").replace('$', '.')))
				.append(" | ")
				.append(defaultOf(property))
				.append(" | ")
				.append(cell(descriptionOf(property)))
				.append(" |\n");
		}
		return page.toString();
	}

	private static String groupOf(String name) {
		String[] parts = name.split("\\.");
		if (name.startsWith("management.")) {
			return "management";
		}
		return (parts.length > 2) ? parts[0] + "." + parts[1] : "jobqueue";
	}

	private static String defaultOf(JsonNode property) {
		JsonNode value = property.get("defaultValue");
		if (value == null || value.isNull()) {
			return "";
		}
		if (value.isArray()) {
			List<String> items = new ArrayList<>();
			value.forEach((item) -> items.add(item.asString()));
			return "`" + String.join(",", items) + "`";
		}
		String text = value.isString() ? value.asString() : value.toString();
		return text.isEmpty() ? "(empty)" : "`" + cell(text) + "`";
	}

	private static String descriptionOf(JsonNode property) {
		String description = property.path("description").asString("");
		JsonNode values = property.get("values");
		if (values != null) {
			List<String> names = new ArrayList<>();
			values.forEach((value) -> names.add("`" + value.path("value").asString() + "`"));
			description += " One of: " + String.join(", ", names) + ".";
		}
		if (property.has("deprecation")) {
			description += " Deprecated.";
		}
		return description.strip();
	}

	private static String cell(String text) {
		return text.replace("\r", "").replace("\n", " ").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;");
	}

}
