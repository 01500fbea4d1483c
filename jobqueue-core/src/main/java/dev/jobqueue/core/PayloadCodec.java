package dev.jobqueue.core;

import java.lang.reflect.Type;

/** Turns payloads and results into JSON text and back. */
public interface PayloadCodec {

	/**
	 * @throws IllegalArgumentException if the value cannot be written as JSON, with the
	 * reason
	 */
	String toJson(Object value);

	/**
	 * @throws IllegalArgumentException if the JSON does not map to the type, with the
	 * reason
	 */
	Object fromJson(String json, Type type);

}
