package dev.jobqueue.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.util.ClassUtils;

import dev.jobqueue.core.NearestName;

/**
 * Warns at start-up of each {@code jobqueue.*} setting no module of the queue knows, with
 * the nearest known name: Boot binds what it finds and ignores the rest, so a misspelt
 * {@code jobqueue.datasource.ur} would otherwise put the queue on its default file
 * without a word. The known names are the configuration metadata of the queue's modules
 * on the classpath (what an IDE offers). Below a map setting any key is taken; where the
 * map's values are objects ({@code jobqueue.handlers.<type>.*},
 * {@code jobqueue.scheduling.schedules.<name>.*}), what follows the key must be one of
 * their properties, so {@code jobqueue.handlers.charge.rate-limt} is named too (and so is
 * a type with dots written without brackets, which Boot would split). Environment
 * variables are left out: unrelated ones may share the prefix.
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
			String nearest = known.nearest(name);
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
		List<MapSetting> maps = new ArrayList<>();
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
						String type = property.path("type").asString("");
						if (type.startsWith("java.util.Map")) {
							maps.add(new MapSetting(ConfigurationPropertyName.of(name), entryProperties(type)));
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
	 * The properties of the values of a map setting whose values are objects of the
	 * queue's ({@code jobqueue.handlers.<type>.rate-limit}), by uniform name;
	 * {@code null} when any key below the map binds (values of a scalar type take the
	 * rest of the name as their key) or the value type is not known here.
	 * @param type the map's type in the metadata, {@code java.util.Map<K,V>}
	 */
	private @Nullable Map<String, EntryProperty> entryProperties(String type) {
		int comma = type.indexOf(',');
		int end = type.lastIndexOf('>');
		if (comma < 0 || end < comma || !type.startsWith("dev.jobqueue.", comma + 1)) {
			return null;
		}
		Class<?> valueType;
		try {
			valueType = ClassUtils.forName(type.substring(comma + 1, end), this.classLoader);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
		if (valueType.isEnum()) {
			return null;
		}
		Map<String, EntryProperty> properties = new LinkedHashMap<>();
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(valueType)) {
			if (descriptor.getWriteMethod() != null) {
				String dashed = DataObjectPropertyName.toDashedForm(descriptor.getName());
				properties.put(ConfigurationPropertyName.of(dashed).getElement(0, Form.UNIFORM),
						new EntryProperty(dashed, Map.class.isAssignableFrom(descriptor.getPropertyType())));
			}
		}
		return properties;
	}

	/**
	 * The known names as written (for the nearest one) and parsed once, and the map
	 * settings.
	 */
	private record Known(Set<String> names, List<ConfigurationPropertyName> parsed, List<MapSetting> maps) {

		/**
		 * Whether {@code name} is a known setting, in any of the forms Boot binds
		 * ({@code pool-size}, {@code poolSize}), or one below a map setting.
		 */
		boolean covers(ConfigurationPropertyName name) {
			return this.parsed.stream().anyMatch(name::equals)
					|| this.maps.stream().anyMatch((map) -> map.covers(name));
		}

		/**
		 * The known name nearest to {@code name}, if it is near enough to be a slip:
		 * among the names, and the settings of the map entry it is in.
		 */
		String nearest(ConfigurationPropertyName name) {
			for (MapSetting map : this.maps) {
				String bracketed = map.bracketed(name);
				if (bracketed != null) {
					return bracketed;
				}
			}
			List<String> candidates = new ArrayList<>(this.names);
			this.maps.forEach((map) -> candidates.addAll(map.entryNames(name)));
			return NearestName.nearest(name.toString(), candidates);
		}

	}

	/**
	 * A map setting, with the properties of its values when they are objects of the
	 * queue's (or {@code null}: any key below it binds).
	 */
	private record MapSetting(ConfigurationPropertyName name, @Nullable Map<String, EntryProperty> entryProperties) {

		/**
		 * Whether {@code candidate} is below this map: a key, then a property of the
		 * values (or anything below one that is a map itself).
		 */
		boolean covers(ConfigurationPropertyName candidate) {
			if (!this.name.isAncestorOf(candidate)) {
				return false;
			}
			if (this.entryProperties == null) {
				return true;
			}
			int property = this.name.getNumberOfElements() + 1;
			if (candidate.getNumberOfElements() <= property) {
				return false;
			}
			EntryProperty known = this.entryProperties.get(candidate.getElement(property, Form.UNIFORM));
			return known != null && (known.map() || candidate.getNumberOfElements() == property + 1);
		}

		/**
		 * {@code candidate} with the key in brackets, when it is a key with dots followed
		 * by a property of the values ({@code jobqueue.handlers.mail.send.rate-limit}),
		 * which Boot splits at the first dot; else {@code null}.
		 */
		@Nullable String bracketed(ConfigurationPropertyName candidate) {
			int key = this.name.getNumberOfElements();
			int last = candidate.getNumberOfElements() - 1;
			if (this.entryProperties == null || !this.name.isAncestorOf(candidate) || last < key + 2) {
				return null;
			}
			EntryProperty property = this.entryProperties.get(candidate.getElement(last, Form.UNIFORM));
			if (property == null || property.map()) {
				return null;
			}
			StringBuilder dotted = new StringBuilder();
			for (int i = key; i < last; i++) {
				dotted.append((i > key) ? "." : "").append(candidate.getElement(i, Form.ORIGINAL));
			}
			return this.name + "[" + dotted + "]." + property.dashed();
		}

		/** The settings of the map entry {@code candidate} is in, if it is in one. */
		List<String> entryNames(ConfigurationPropertyName candidate) {
			int key = this.name.getNumberOfElements() + 1;
			if (this.entryProperties == null || !this.name.isAncestorOf(candidate)
					|| candidate.getNumberOfElements() < key) {
				return List.of();
			}
			ConfigurationPropertyName entry = candidate.chop(key);
			return this.entryProperties.values()
				.stream()
				.map((property) -> entry.append(property.dashed()).toString())
				.toList();
		}

	}

	/** A property of a map's values, in its dashed form, and whether it is a map too. */
	private record EntryProperty(String dashed, boolean map) {

	}

}
