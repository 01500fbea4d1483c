package dev.jobqueue.jdbc;

import java.util.Collection;

/**
 * JSON arrays of strings and numbers, the one shape of JSON statements need (a set of ids
 * or types passed to a database's JSON table function, such as SQLite's
 * {@code json_each}). Written by hand so the store needs no JSON library.
 */
public final class JsonArrays {

	private JsonArrays() {
	}

	/** Numbers bare, anything else as a JSON string. */
	public static String of(Collection<?> values) {
		StringBuilder json = new StringBuilder(2 + values.size() * 8).append('[');
		for (Object value : values) {
			if (json.length() > 1) {
				json.append(',');
			}
			if (value instanceof Long || value instanceof Integer) {
				json.append(value);
			}
			else {
				appendString(json, String.valueOf(value));
			}
		}
		return json.append(']').toString();
	}

	/** {@code value} as a JSON string, or {@code null} for none. */
	public static String string(String value) {
		if (value == null) {
			return "null";
		}
		StringBuilder json = new StringBuilder(value.length() + 2);
		appendString(json, value);
		return json.toString();
	}

	private static void appendString(StringBuilder json, String value) {
		json.append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '"' || c == '\\') {
				json.append('\\').append(c);
			}
			else if (c < 0x20) {
				json.append(String.format("\\u%04x", (int) c));
			}
			else {
				json.append(c);
			}
		}
		json.append('"');
	}

}
