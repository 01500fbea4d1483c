package dev.jobqueue.dashboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.views.KeyState;
import dev.jobqueue.views.QueueSnapshot.FlowState;
import dev.jobqueue.views.TypeKeys;

/**
 * The keys of one type: its limits, its blocked keys (each with the failed job that
 * blocks it, to open or retry), and its busiest keys by backlog. Every key links to its
 * jobs of the type (the job list's key filter), where its pending jobs can be cancelled
 * together.
 */
final class KeysPage {

	private KeysPage() {
	}

	/** The heading and the limits, which the refresh leaves alone. */
	static String heading(String type, FlowControl flow) {
		Html html = new Html();
		html.raw("<h1>").text("Keys of " + type).raw("</h1><p id=\"flow-limits\">");
		html.text(flow.limits() ? "Flow control: " + describe(flow) + "."
				: "This process has no flow control for " + type + ": its keys only take turns.");
		html.raw("</p>");
		return html.toString();
	}

	/** The limits in words. */
	static String describe(FlowControl flow) {
		List<String> limits = new ArrayList<>();
		if (flow.rateLimit() != null) {
			limits.add("rate limit " + flow.rateLimit());
		}
		if (flow.keyRateLimit() != null) {
			limits.add("rate limit per key " + flow.keyRateLimit());
		}
		if (flow.ordered()) {
			limits.add(flow.blockOnFailure() ? "ordered per key, a failed job blocks its key"
					: "ordered per key, a failed job lets the next go");
		}
		else if (flow.keyConcurrency() > 0) {
			limits.add(flow.keyConcurrency() + " running per key");
		}
		return String.join(", ", limits);
	}

	static String render(Viewer viewer, TypeKeys keys, FlowState state) {
		Html html = new Html();
		html.raw("<p id=\"key-counts\">")
			.text(Formats.count(keys.keys()) + " key(s) with pending, running or failed jobs, "
					+ Formats.count(keys.blockedKeys()) + " blocked.");
		if (state != null) {
			html.text(" Due jobs held back now: ");
			List<String> reasons = new ArrayList<>();
			for (Map.Entry<String, Long> reason : state.throttled().entrySet()) {
				reasons.add(Formats.count(reason.getValue()) + " by " + reason.getKey());
			}
			html.text(String.join(", ", reasons) + ".");
		}
		html.raw("</p>");
		blocked(html, viewer, keys);
		busiest(html, viewer, keys);
		return html.toString();
	}

	private static void blocked(Html html, Viewer viewer, TypeKeys keys) {
		if (keys.blocked().isEmpty()) {
			return;
		}
		html.raw("<section aria-labelledby=\"blocked-title\"><h2 id=\"blocked-title\">Blocked keys</h2>")
			.raw("<p>")
			.text("A job of each failed for good, so its later jobs wait. Retry the failed job to run it again "
					+ "and let the key go on, or delete it (from the key's failed jobs) to let the next one go.")
			.raw("</p><div class=\"scroll\"><table id=\"blocked-keys\"><thead><tr><th>Key</th><th>Failed job</th>")
			.raw("<th>Failed</th><th>Pending</th><th>Due</th><th>Actions</th></tr></thead><tbody>");
		for (KeyState key : keys.blocked()) {
			html.raw("<tr").attr("data-key", key.key()).raw("><td>");
			keyLink(html, viewer, keys.type(), key.key());
			html.raw("</td><td>");
			if (key.failedJobId() != null) {
				html.raw("<a class=\"blocking-job\"")
					.attr("href", viewer.url("/jobs/" + key.failedJobId()))
					.raw(">")
					.text("#" + key.failedJobId())
					.raw("</a>");
			}
			html.raw("</td><td>");
			html.link(JobPages.listUrl(viewer, JobStatus.FAILED, keys.type(), null, key.key(), null),
					Formats.count(key.failed()));
			html.raw("</td>")
				.element("td", Formats.count(key.pending()))
				.element("td", Formats.count(key.due()))
				.raw("<td>");
			if (!viewer.readOnly() && key.failedJobId() != null) {
				html.raw("<a class=\"button\"")
					.attr("href", viewer.url("/jobs/" + key.failedJobId() + "/retry"))
					.attr("data-action", "retry")
					.raw(">")
					.text("Retry #" + key.failedJobId() + "…")
					.raw("</a>");
			}
			if (!viewer.readOnly() && key.pending() > 0) {
				html.raw(" <a class=\"button\"")
					.attr("href",
							viewer.url("/bulk/cancel?status=pending&type=" + JobPages.encode(keys.type()) + "&key="
									+ JobPages.encode(key.key())))
					.attr("data-action", "cancel")
					.raw(">")
					.text("Cancel its pending jobs…")
					.raw("</a>");
			}
			html.raw("</td></tr>");
		}
		html.raw("</tbody></table></div>");
		if (keys.blockedKeys() > keys.blocked().size()) {
			html.raw("<p>")
				.text(Formats.count(keys.blockedKeys() - keys.blocked().size()) + " more blocked key(s): ")
				.link(JobPages.listUrl(viewer, JobStatus.FAILED, keys.type(), null, null, null),
						"see every failed job of " + keys.type())
				.raw("</p>");
		}
		html.raw("</section>");
	}

	private static void busiest(Html html, Viewer viewer, TypeKeys keys) {
		html.raw("<section aria-labelledby=\"busiest-title\"><h2 id=\"busiest-title\">Busiest keys</h2>");
		if (keys.busiest().isEmpty()) {
			html.raw("<p>No job of this type has a key, or none is pending, running or failed.</p></section>");
			return;
		}
		html.raw("<div class=\"scroll\"><table id=\"busiest-keys\"><thead><tr><th>Key</th><th>Pending</th>")
			.raw("<th>Due</th><th>Running</th><th>Failed</th><th>State</th></tr></thead><tbody>");
		for (KeyState key : keys.busiest()) {
			html.raw("<tr").attr("data-key", key.key()).raw("><td>");
			keyLink(html, viewer, keys.type(), key.key());
			html.raw("</td>")
				.element("td", Formats.count(key.pending()))
				.element("td", Formats.count(key.due()))
				.element("td", Formats.count(key.running()))
				.element("td", Formats.count(key.failed()))
				.raw("<td>");
			if (key.blocked() && key.failedJobId() != null) {
				html.status(JobStatus.FAILED, "blocked")
					.text(" by ")
					.link(viewer.url("/jobs/" + key.failedJobId()), "#" + key.failedJobId());
			}
			html.raw("</td></tr>");
		}
		html.raw("</tbody></table></div>");
		if (keys.keys() > keys.busiest().size()) {
			html.raw("<p>")
				.text("The " + keys.busiest().size() + " of " + Formats.count(keys.keys())
						+ " keys with the most pending jobs.")
				.raw("</p>");
		}
		html.raw("</section>");
	}

	private static void keyLink(Html html, Viewer viewer, String type, String key) {
		html.raw("<a class=\"job-key\"")
			.attr("href", JobPages.listUrl(viewer, null, type, null, key, null))
			.raw(">")
			.text(key)
			.raw("</a>");
	}

}
