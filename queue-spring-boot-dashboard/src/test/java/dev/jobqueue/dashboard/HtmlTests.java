package dev.jobqueue.dashboard;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Text shown on a page cannot turn around the text that follows it: every bidirectional
 * control is written as visible text; an attribute keeps the value as it is, since it is
 * data (a filter's input searches for the very type).
 */
class HtmlTests {

	@Test
	void bidiControlsInTextAreShownAsTheirCodePoints() {
		String all = "a\u202Ab\u202Bc\u202Cd\u202De\u202Ef\u2066g\u2067h\u2068i\u2069j\u200Ek\u200Fl\u061Cm";
		assertThat(new Html().text(all).toString()).isEqualTo("a[U+202A]b[U+202B]c[U+202C]d[U+202D]e[U+202E]f"
				+ "[U+2066]g[U+2067]h[U+2068]i[U+2069]j[U+200E]k[U+200F]l[U+61C]m");
	}

	@Test
	void zeroWidthCharactersInTextAreShownAsTheirCodePoints() {
		// Two keys that would look the same: "acme" and "ac\u200Bme".
		String all = "a\u200Bb\u200Cc\u200Dd\u2060e\uFEFFf";
		assertThat(new Html().text(all).toString()).isEqualTo("a[U+200B]b[U+200C]c[U+200D]d[U+2060]e[U+FEFF]f");
		assertThat(new Html().text("ac\u200Bme").toString()).isNotEqualTo(new Html().text("acme").toString())
			.isEqualTo("ac[U+200B]me");
	}

	@Test
	void attributesKeepTheValueEscapedForMarkupOnly() {
		assertThat(new Html().attr("value", "bidi\u202Egnp.exe<\"&").toString())
			.isEqualTo(" value=\"bidi\u202Egnp.exe&lt;&quot;&amp;\"");
	}

	@Test
	void listLinksEncodeTypesWhole() {
		Viewer viewer = new Viewer("/jobqueue", false, true, null, null, 1000);
		assertThat(JobPages.listUrl(viewer, null, "a&status=succeeded #x", null, null, null))
			.isEqualTo("/jobqueue/jobs?type=a%26status%3Dsucceeded%20%23x");
	}

}
