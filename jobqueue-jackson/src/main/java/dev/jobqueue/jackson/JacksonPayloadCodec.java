package dev.jobqueue.jackson;

import java.lang.reflect.Type;
import java.util.Objects;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.jobqueue.core.PayloadCodec;

/**
 * Payloads and results as JSON with the application's {@link JsonMapper}, so its
 * customisations (modules, naming strategy, date formats) apply to jobs too. A handler
 * parameter of type {@code String} receives a JSON string's value, or the raw JSON for
 * anything else; {@code JsonNode} receives the tree.
 */
public class JacksonPayloadCodec implements PayloadCodec {

	private final JsonMapper mapper;

	public JacksonPayloadCodec(JsonMapper mapper) {
		this.mapper = Objects.requireNonNull(mapper, "'mapper' must not be null");
	}

	@Override
	public String toJson(Object value) {
		try {
			return this.mapper.writeValueAsString(value);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException(ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public Object fromJson(String json, Type type) {
		try {
			if (type == String.class) {
				JsonNode node = this.mapper.readTree(json);
				return node.isString() ? node.asString() : json;
			}
			if (type instanceof Class<?> cls && JsonNode.class.isAssignableFrom(cls)) {
				return this.mapper.readTree(json);
			}
			return this.mapper.readValue(json, this.mapper.getTypeFactory().constructType(type));
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException(ex.getOriginalMessage(), ex);
		}
	}

}
