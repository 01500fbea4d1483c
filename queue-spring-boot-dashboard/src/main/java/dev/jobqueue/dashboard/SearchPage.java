package dev.jobqueue.dashboard;

import java.time.Instant;

import dev.jobqueue.views.JobSearch;
import dev.jobqueue.views.JobSummary;
import dev.jobqueue.views.SearchMatch;
import dev.jobqueue.views.SearchResult;

/**
 * The search page: the search form, the jobs found with where the text matched, and what
 * was searched (the window of recent jobs, and whether values were).
 */
final class SearchPage {

	private SearchPage() {
	}

	static String heading(Viewer viewer, String text) {
		Html html = new Html();
		html.raw("<h1>Search</h1>");
		form(html, viewer, text, "search-query");
		return html.toString();
	}

	/** The search form, in the header of every page and atop the search page. */
	static void form(Html html, Viewer viewer, String text, String id) {
		html.raw("<form class=\"search\" role=\"search\" method=\"get\"")
			.attr("action", viewer.url("/search"))
			.raw("><label><span class=\"label\">Search jobs</span> <input type=\"search\" name=\"q\"")
			.attr("id", id)
			.attr("value", text)
			.attr("maxlength", JobSearch.MAX_TEXT)
			.raw(" autocomplete=\"off\" placeholder=\"id, error code, key, text\"></label>")
			.raw("<button type=\"submit\">Search</button></form>");
	}

	static String results(Viewer viewer, SearchResult result, Instant now) {
		Html html = new Html();
		if (result.matches().isEmpty()) {
			html.raw("<p id=\"no-jobs\">No job found.</p>");
		}
		else {
			html.raw("<div class=\"scroll\"><table id=\"search-results\"><thead><tr><th>Job</th><th>Type</th>")
				.raw("<th>Status</th><th>Key</th><th>Matched on</th><th>Created</th><th>Error code</th></tr></thead><tbody>");
			for (SearchMatch match : result.matches()) {
				JobSummary job = match.job();
				JobPages.summaryCells(html, viewer, job)
					.element("td", match.matchedOn())
					.element("td", Formats.ago(job.createdAt(), now))
					.element("td", job.errorCode())
					.raw("</tr>");
			}
			html.raw("</tbody></table></div>");
		}
		html.raw("<p class=\"hint\" id=\"search-scope\">")
			.text("Found by id, error code, key and an unfinished job's dedup key anywhere; text searched in the "
					+ Formats.count(result.scanned()) + " most recent jobs"
					+ ((result.scannedFrom() != null) ? " (from #" + result.scannedFrom() + ")" : "") + ", in "
					+ (result.valuesSearched() ? "error codes, dedup keys, error details and payloads."
							: "error codes only: payloads, error details and dedup keys are hidden from you "
									+ "(management.endpoint.jobqueue.show-values), so they are not searched."))
			.raw("</p>");
		return html.toString();
	}

}
