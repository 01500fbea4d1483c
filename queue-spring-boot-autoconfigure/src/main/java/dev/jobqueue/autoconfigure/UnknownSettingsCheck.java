package dev.jobqueue.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;

/**
 * Warns at start-up of each {@code jobqueue.*} setting no module of the queue knows, with
 * the nearest known name: Boot binds what it finds and ignores the rest, so a misspelt
 * {@code jobqueue.datasource.ur} would otherwise put the queue on its default file
 * without a word. The known names are the configuration metadata of the queue's modules
 * on the classpath (what an IDE offers); map settings ({@code per-type},
 * {@code schedules}) take any key below them. Environment variables are left out:
 * unrelated ones may share the prefix.
 */
class UnknownSettingsCheck implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(UnknownSettingsCheck.class);

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("jobqueue");

	/** At most this many settings are named, so a broken file does not flood the log. */
	private static final int MAX_WARNINGS = 10;

	private final Environment environment;

	private final ClassLoader classLoader;

	UnknownSettingsCheck(Environment environment, ClassLoader classLoader) {
		this.environment = environment;
		this.classLoader = classLoader;
	}

	@Override
	public void afterSingletonsInstantiated() {
		unknown().stream().limit(MAX_WARNINGS).forEach(logger::warn);
	}

	/** A warning per unknown {@code jobqueue.*} setting; none if no metadata is found. */
	List<String> unknown() {
		Known known = known();
		if (known.names().isEmpty()) {
			return List.of();
		}
		List<String> warnings = new ArrayList<>();
		for (ConfigurationPropertyName name : configured()) {
			if (known.covers(name)) {
				continue;
			}
			String nearest = known.nearest(name.toString());
			warnings.add("Unknown job queue setting " + name + ", ignored: "
					+ ((nearest != null) ? "did you mean " + nearest + "? " : "")
					+ "The settings are listed in the README's Configuration table, and your IDE offers them.");
		}
		return warnings;
	}

	private Set<ConfigurationPropertyName> configured() {
		Set<ConfigurationPropertyName> names = new TreeSet<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			Object underlying = source.getUnderlyingSource();
			if (underlying instanceof org.springframework.core.env.PropertySource<?> propertySource
					&& StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME.equals(propertySource.getName())) {
				continue;
			}
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.filter(PREFIX::isAncestorOf).forEach(names::add);
			}
		}
		return names;
	}

	private Known known() {
		Set<String> names = new TreeSet<>();
		List<ConfigurationPropertyName> parsed = new ArrayList<>();
		List<ConfigurationPropertyName> maps = new ArrayList<>();
		JsonMapper mapper = JsonMapper.builder().build();
		try {
			for (URL url : Collections
				.list(this.classLoader.getResources("META-INF/spring-configuration-metadata.json"))) {
				try (InputStream in = url.openStream()) {
					JsonNode properties = mapper.readTree(in).path("properties");
					for (JsonNode property : properties) {
						String name = property.path("name").asString("");
						// A name Boot could not bind (hand-written metadata) is not one.
						if (!name.startsWith("jobqueue.") || !ConfigurationPropertyName.isValid(name)) {
							continue;
						}
						names.add(name);
						parsed.add(ConfigurationPropertyName.of(name));
						if (property.path("type").asString("").startsWith("java.util.Map")) {
							maps.add(ConfigurationPropertyName.of(name));
						}
					}
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			logger.debug("Could not read the configuration metadata; settings are not checked", ex);
			return new Known(Set.of(), List.of(), List.of());
		}
		return new Known(names, parsed, maps);
	}

	/**
	 * The known names as written (for the nearest one) and parsed once, and the map
	 * settings.
	 */
	private record Known(Set<String> names, List<ConfigurationPropertyName> parsed,
			List<ConfigurationPropertyName> maps) {

		/**
		 * Whether {@code name} is a known setting, in any of the forms Boot binds
		 * ({@code pool-size}, {@code poolSize}), or a key below a map setting.
		 */
		boolean covers(ConfigurationPropertyName name) {
			return this.parsed.stream().anyMatch(name::equals)
					|| this.maps.stream().anyMatch((map) -> map.isAncestorOf(name));
		}

		/** The known name nearest to {@code name}, if it is near enough to be a slip. */
		String nearest(String name) {
			String best = null;
			int bestDistance = Integer.MAX_VALUE;
			for (String candidate : this.names) {
				int distance = distance(name, candidate);
				if (distance < bestDistance) {
					best = candidate;
					bestDistance = distance;
				}
			}
			return (bestDistance <= Math.max(2, name.length() / 5)) ? best : null;
		}

		private static int distance(String a, String b) {
			int[] previous = new int[b.length() + 1];
			int[] current = new int[b.length() + 1];
			for (int j = 0; j <= b.length(); j++) {
				previous[j] = j;
			}
			for (int i = 1; i <= a.length(); i++) {
				current[0] = i;
				for (int j = 1; j <= b.length(); j++) {
					int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
					current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
				}
				int[] swap = previous;
				previous = current;
				current = swap;
			}
			return previous[b.length()];
		}

	}

}
