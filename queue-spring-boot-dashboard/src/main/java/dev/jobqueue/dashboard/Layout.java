package dev.jobqueue.dashboard;

import java.time.Instant;

/**
 * The frame of every page: head, navigation, the page's fixed part (headings, filter
 * forms), its live part, which the script replaces with a fresh copy every refresh
 * interval, and the time it was rendered. The stylesheet and script are files of this
 * jar, served under the dashboard's path: nothing comes from outside.
 */
final class Layout {

	private Layout() {
	}

	/**
	 * @param fixed markup the refresh leaves alone (so a half-typed filter survives it)
	 * @param live markup the refresh replaces
	 * @param refresh whether the page refreshes itself (not for confirmations and pages
	 * that say no)
	 */
	static String page(Viewer viewer, String title, String section, Instant now, String fixed, String live,
			boolean refresh) {
		Html html = new Html();
		html.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
			.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
			.raw("<title>")
			.text(title + " · jobqueue")
			.raw("</title>")
			// No favicon request: a 404 for it would be an error in the browser's
			// console.
			.raw("<link rel=\"icon\" href=\"data:,\">")
			.raw("<link rel=\"stylesheet\"")
			.attr("href", viewer.url("/assets/dashboard.css"))
			.raw(">")
			.raw("<script defer")
			.attr("src", viewer.url("/assets/dashboard.js"))
			.raw("></script>")
			.raw("</head><body");
		if (refresh) {
			html.attr("data-refresh-ms", viewer.refreshMillis());
		}
		html.raw(">");
		html.raw("<a class=\"skip\" href=\"#main\">Skip to content</a>");
		html.raw("<header><nav aria-label=\"Dashboard\"><a class=\"brand\"")
			.attr("href", viewer.url("/"))
			.raw(">jobqueue</a><ul>");
		navItem(html, viewer.url("/jobs?status=failed"), "Failed", "failed".equals(section));
		navItem(html, viewer.url("/jobs?status=running"), "Running", "running".equals(section));
		navItem(html, viewer.url("/jobs?status=pending"), "Pending", "pending".equals(section));
		navItem(html, viewer.url("/jobs?status=waiting"), "Waiting", "waiting".equals(section));
		navItem(html, viewer.url("/jobs"), "All jobs", "all".equals(section));
		html.raw("</ul></nav>");
		SearchPage.form(html, viewer, null, "search-box");
		html.raw("<p class=\"mode\" id=\"mode\">")
			.text(viewer.readOnly() ? "read-only" : "actions on")
			.raw("</p></header>");
		html.raw("<main id=\"main\" tabindex=\"-1\">")
			.raw(fixed)
			.raw("<div id=\"live\">")
			.raw(live)
			.raw("</div><p class=\"updated\">Updated <time id=\"updated-at\"")
			.attr("datetime", now.toString())
			.raw(">")
			.text(Formats.instant(now))
			.raw("</time></p></main></body></html>");
		return html.toString();
	}

	private static void navItem(Html html, String href, String label, boolean current) {
		html.raw("<li><a").attr("href", href);
		if (current) {
			html.raw(" aria-current=\"page\"");
		}
		html.raw(">").text(label).raw("</a></li>");
	}

}
