package dev.jobqueue.dashboard;

import java.time.Instant;

/**
 * How far a running job says it is, drawn as a bar that moves from one refresh to the next.
 *
 * @param done units done
 * @param total units in all, or 0 when unknown
 * @param message what it is doing, or {@code null}
 * @param at when it was reported
 */
record JobProgressView(long done, long total, String message, Instant at) {

	static void render(Html html, long jobId, JobProgressView progress) {
		if (progress == null) {
			html.raw("<span class=\"muted\">not reported</span>");
			return;
		}
		String label = (progress.total() > 0)
				? Formats.count(progress.done()) + " of " + Formats.count(progress.total()) + " ("
						+ (100 * Math.min(progress.done(), progress.total()) / progress.total()) + "%)"
				: Formats.count(progress.done()) + " done";
		html.raw("<span class=\"progress\"><progress").attr("id", "progress-" + jobId).attr("max",
				Math.max(progress.total(), 1));
		if (progress.total() > 0) {
			html.attr("value", Math.min(progress.done(), progress.total()));
		}
		html.attr("aria-label", "Progress of job " + jobId).raw(">").text(label).raw("</progress> ")
			.raw("<span class=\"progress-label\">").text(label).raw("</span>");
		if (progress.message() != null && !progress.message().isBlank()) {
			html.raw(" <span class=\"progress-message\">").text(progress.message()).raw("</span>");
		}
		html.raw("</span>");
	}

}
