package dev.jobqueue.dashboard;

import dev.jobqueue.views.ValuePolicy;

/**
 * Who looks at a page, as far as rendering cares: where the dashboard lives, whether this
 * person may see values and act, and the CSRF field a form must carry (when Spring
 * Security guards the application).
 *
 * @param base the dashboard's path, without a trailing slash
 * @param showValues whether payloads, results, error details and dedup keys are shown
 * @param readOnly whether action buttons are left out
 * @param csrfName the CSRF form field's name, or {@code null}
 * @param csrfToken the CSRF token, or {@code null}
 * @param refreshMillis how often the page brings itself up to date
 */
record Viewer(String base, boolean showValues, boolean readOnly, String csrfName, String csrfToken,
		long refreshMillis) {

	/** The value policy settled for this person, for what the dashboard reads. */
	ValuePolicy values() {
		return this.showValues ? ValuePolicy.SHOWN : ValuePolicy.HIDDEN;
	}

	String url(String path) {
		return this.base + path;
	}

	/** The hidden CSRF field of a form, if any. */
	void csrf(Html html) {
		if (this.csrfName != null && this.csrfToken != null) {
			html.raw("<input type=\"hidden\"").attr("name", this.csrfName).attr("value", this.csrfToken).raw(">");
		}
	}

}
