package dev.jobqueue.dashboard;

import java.util.Locale;

import dev.jobqueue.JobStatus;

/**
 * Builds a page's markup. Values go in only through {@link #text} and {@link #attr},
 * which escape them, so a payload of {@code <script>} is shown as text wherever it lands;
 * {@link #raw} takes markup written in this package and nothing a user or a job can
 * influence. Unicode's bidirectional controls are written as visible text
 * ({@code [U+202E]}), so a type or payload cannot reverse what is shown around it
 * ({@code bidi\\u202Egnp.exe} would read {@code bidiexe.png}), and so are the invisible
 * zero-width characters ({@code [U+200B]}), so two keys or types that differ only by one
 * do not look the same; the elements that show values (cells, links, facts, headings)
 * isolate their direction with the stylesheet's {@code unicode-bidi: isolate}.
 */
final class Html {

	private final StringBuilder out = new StringBuilder(8192);

	/** Markup from this package's own constants. */
	Html raw(String markup) {
		this.out.append(markup);
		return this;
	}

	/** A value as text, escaped; {@code null} as nothing. */
	Html text(Object value) {
		if (value != null) {
			escape(String.valueOf(value), true);
		}
		return this;
	}

	/** {@code name="value"} with a leading space, the value escaped. */
	Html attr(String name, Object value) {
		this.out.append(' ').append(name).append("=\"");
		// An attribute keeps the value as it is (a filter's input must search for the
		// very type): it is data, not text shown among other text.
		if (value != null) {
			escape(String.valueOf(value), false);
		}
		this.out.append('"');
		return this;
	}

	/**
	 * An element holding one value as text: {@code
	 *
	<td>value</td>}.
	 */
	Html element(String tag, Object value) {
		return raw("<" + tag + ">").text(value).raw("</" + tag + ">");
	}

	/**
	 * A status badge, coloured by the stylesheet's class for {@code status}, with
	 * {@code label} as its text.
	 */
	Html status(JobStatus status, Object label) {
		return raw("<span class=\"status ").raw(status.dbValue()).raw("\">").text(label).raw("</span>");
	}

	/** A link with text (the stylesheet isolates its direction). */
	Html link(String href, Object label) {
		return raw("<a").attr("href", href).raw(">").text(label).raw("</a>");
	}

	/**
	 * Whether {@code c} changes the direction of the text after it (the embeddings,
	 * overrides and isolates and their ends, and the directional marks) or takes no room
	 * at all (zero-width space, non-joiner and joiner, word joiner, byte order mark).
	 */
	static boolean isBidiControl(char c) {
		return (c >= '\u202A' && c <= '\u202E') || (c >= '\u2066' && c <= '\u2069') || c == '\u200E' || c == '\u200F'
				|| c == '\u061C' || isZeroWidth(c);
	}

	private static boolean isZeroWidth(char c) {
		return (c >= '\u200B' && c <= '\u200D') || c == '\u2060' || c == '\uFEFF';
	}

	private void escape(String value, boolean visibleBidiControls) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '<' -> this.out.append("&lt;");
				case '>' -> this.out.append("&gt;");
				case '&' -> this.out.append("&amp;");
				case '"' -> this.out.append("&quot;");
				case '\'' -> this.out.append("&#39;");
				default -> {
					if (visibleBidiControls && isBidiControl(c)) {
						this.out.append("[U+").append(Integer.toHexString(c).toUpperCase(Locale.ROOT)).append(']');
					}
					else {
						this.out.append(c);
					}
				}
			}
		}
	}

	@Override
	public String toString() {
		return this.out.toString();
	}

}
