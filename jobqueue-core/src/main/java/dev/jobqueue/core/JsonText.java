package dev.jobqueue.core;

/** Makes JSON text safe to store as UTF-8 without changing what it means. */
public final class JsonText {

	private JsonText() {
	}

	/**
	 * Writes each unpaired UTF-16 surrogate as a {@code \\uXXXX} escape. Such a char
	 * (half of an emoji, say, from a string cut in the wrong place) has no UTF-8 form:
	 * stored as it is, the database keeps a '?' in its place and the handler receives
	 * another string than was enqueued. Escaped, it reads back exactly. A surrogate can
	 * only occur inside a JSON string, where an escape means the same char.
	 */
	public static String escapeLoneSurrogates(String json) {
		if (json == null) {
			return null;
		}
		StringBuilder escaped = null;
		int length = json.length();
		for (int i = 0; i < length; i++) {
			char c = json.charAt(i);
			boolean lone;
			if (Character.isHighSurrogate(c)) {
				lone = i + 1 >= length || !Character.isLowSurrogate(json.charAt(i + 1));
				if (!lone) {
					if (escaped != null) {
						escaped.append(c).append(json.charAt(i + 1));
					}
					i++;
					continue;
				}
			}
			else {
				lone = Character.isLowSurrogate(c);
			}
			if (lone && escaped == null) {
				escaped = new StringBuilder(length + 16).append(json, 0, i);
			}
			if (escaped != null) {
				if (lone) {
					escaped.append(String.format("\\u%04X", (int) c));
				}
				else {
					escaped.append(c);
				}
			}
		}
		return (escaped != null) ? escaped.toString() : json;
	}

}
