package dev.jobqueue.dashboard;

/**
 * Builds a page's markup. Values go in only through {@link #text} and {@link #attr},
 * which escape them, so a payload of {@code <script>} is shown as text wherever it lands;
 * {@link #raw} takes markup written in this package and nothing a user or a job can
 * influence.
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
			escape(String.valueOf(value));
		}
		return this;
	}

	/** {@code name="value"} with a leading space, the value escaped. */
	Html attr(String name, Object value) {
		this.out.append(' ').append(name).append("=\"");
		text(value);
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

	/** A link with text. */
	Html link(String href, Object label) {
		return raw("<a").attr("href", href).raw(">").text(label).raw("</a>");
	}

	private void escape(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '<' -> this.out.append("&lt;");
				case '>' -> this.out.append("&gt;");
				case '&' -> this.out.append("&amp;");
				case '"' -> this.out.append("&quot;");
				case '\'' -> this.out.append("&#39;");
				default -> this.out.append(c);
			}
		}
	}

	@Override
	public String toString() {
		return this.out.toString();
	}

}
