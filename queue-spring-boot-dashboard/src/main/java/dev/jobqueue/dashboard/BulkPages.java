package dev.jobqueue.dashboard;

import dev.jobqueue.BulkAction;
import dev.jobqueue.BulkRequest;
import dev.jobqueue.BulkResult;
import dev.jobqueue.JobFilter;
import dev.jobqueue.views.JobQuery;

/**
 * The pages of a bulk action on the jobs a list shows: the links above the list, the
 * confirmation with the dry run's count ("Retry 4,012 jobs?"), and what was done.
 */
final class BulkPages {

	private BulkPages() {
	}

	/** The list's filter as a bulk action's. */
	static JobFilter filter(JobQuery query) {
		return JobFilter.any().status(query.status()).type(query.type()).errorCode(query.errorCode()).key(query.key());
	}

	/** The address of a bulk action on the list's jobs, with their filter. */
	static String path(BulkAction action, JobQuery query) {
		StringBuilder params = new StringBuilder();
		JobPages.param(params, "status", (query.status() != null) ? query.status().dbValue() : null);
		JobPages.param(params, "type", query.type());
		JobPages.param(params, "error", query.errorCode());
		JobPages.param(params, "key", query.key());
		return "/bulk/" + action.word() + params;
	}

	/**
	 * Links to the bulk actions that fit a filtered list, for a dashboard that acts: none
	 * for the unfiltered list of all jobs.
	 */
	static void links(Html html, Viewer viewer, JobQuery query) {
		if (viewer.readOnly() || filter(query).matchesAll()) {
			return;
		}
		StringBuilder links = new StringBuilder();
		for (BulkAction action : BulkAction.values()) {
			if (query.status() == null || action.statuses().contains(query.status())) {
				Html link = new Html();
				link.raw("<a class=\"button\"")
					.attr("id", "bulk-" + action.word())
					.attr("href", viewer.url(path(action, query)))
					.raw(">")
					.text(label(action) + " all matching…")
					.raw("</a> ");
				links.append(link);
			}
		}
		if (!links.isEmpty()) {
			html.raw("<p class=\"actions\" id=\"bulk-actions\">").raw(links.toString()).raw("</p>");
		}
	}

	static String label(BulkAction action) {
		return switch (action) {
			case RETRY -> "Retry";
			case CANCEL -> "Cancel";
			case DELETE -> "Delete";
		};
	}

	static String done(BulkAction action) {
		return switch (action) {
			case RETRY -> "retried";
			case CANCEL -> "cancelled";
			case DELETE -> "deleted";
		};
	}

	static String question(BulkAction action, long matched) {
		return label(action) + " " + Formats.count(matched) + " job" + ((matched == 1) ? "" : "s") + "?";
	}

	static String explanation(BulkAction action, JobFilter filter, long matched) {
		String what = switch (action) {
			case RETRY -> "go back to pending with a fresh set of attempts, each with its own event";
			case CANCEL -> "are cancelled (running ones are interrupted), each with its own event";
			case DELETE -> "are deleted with their attempts and events; chain steps and jobs an unfinished job "
					+ "waits for are kept";
		};
		String bound = (matched > BulkRequest.CONFIRMATION_BOUND) ? " That is more than "
				+ Formats.count(BulkRequest.CONFIRMATION_BOUND) + " jobs: confirming here confirms that too." : "";
		return "The " + action.statusWords() + " jobs matching " + filter + " (" + Formats.count(matched) + " now) "
				+ what + ", " + BulkRequest.DEFAULT_BATCH_SIZE
				+ " per transaction. A job that changes before its turn is left alone." + bound;
	}

	static String result(Viewer viewer, BulkResult result, String listPath) {
		Html html = new Html();
		String title = Formats.count(result.applied()) + " job" + ((result.applied() == 1) ? "" : "s") + " "
				+ done(result.action());
		html.raw("<h1 id=\"bulk-done\">").text(title).raw("</h1><p id=\"bulk-detail\">");
		html.text(Formats.count(result.matched()) + " matched " + result.filter() + ", in " + result.batches()
				+ " batch(es)");
		if (result.skipped() > 0) {
			html.text("; " + Formats.count(result.skipped()) + " left alone: they changed before their turn"
					+ ((result.action() == BulkAction.RETRY) ? " or their dedup key is taken" : ""));
		}
		html.raw(".</p><p>").link(viewer.url(listPath), "Back to the jobs").raw("</p>");
		return html.toString();
	}

}
