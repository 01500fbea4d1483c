package dev.jobqueue.dashboard;

import dev.jobqueue.views.JobProgress;

/**
 * How far a job says it is, drawn as a bar that moves from one refresh of the page to the
 * next.
 */
final class ProgressBar {

	private ProgressBar() {
	}

	static void render(Html html, Viewer viewer, long jobId, JobProgress progress) {
		if (progress == null) {
			html.raw("<span class=\"muted\">not reported</span>");
			return;
		}
		String label = (progress.total() > 0)
				? Formats.count(progress.done()) + " of " + Formats.count(progress.total()) + " ("
						+ (100 * Math.min(progress.done(), progress.total()) / progress.total()) + "%)"
				: Formats.count(progress.done()) + " done";
		html.raw("<span class=\"progress\"><progress")
			.attr("id", "progress-" + jobId)
			.attr("max", Math.max(progress.total(), 1));
		// Without a total the bar is indeterminate: it moves on its own, and the count
		// says how far.
		if (progress.total() > 0) {
			html.attr("value", Math.min(progress.done(), progress.total()));
		}
		html.attr("aria-label", "Progress of job " + jobId)
			.raw(">")
			.text(label)
			.raw("</progress> ")
			.raw("<span class=\"progress-label\">")
			.text(label)
			.raw("</span>");
		// The handler's message may name what it works on: a value, shown as payloads
		// are.
		if (viewer.showValues() && progress.message() != null && !progress.message().isBlank()) {
			html.raw(" <span class=\"progress-message\">").text(progress.message()).raw("</span>");
		}
		html.raw("</span>");
	}

}
