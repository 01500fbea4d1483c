package dev.jobqueue.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.jobqueue.JobStatus;
import dev.jobqueue.views.Attempt;
import dev.jobqueue.views.Event;
import dev.jobqueue.views.JobDetail;
import dev.jobqueue.views.JobLinks;
import dev.jobqueue.views.JobPage;
import dev.jobqueue.views.JobQuery;
import dev.jobqueue.views.JobSummary;
import dev.jobqueue.views.Step;
import dev.jobqueue.views.Text;

/**
 * The job list with its filters, one job's page, the confirmation of an action, and pages
 * that say no.
 */
final class JobPages {

	private static final String HIDDEN = "hidden (management.endpoint.jobqueue.show-values)";

	private JobPages() {
	}

	/** The list's heading and filter form, which the refresh leaves alone. */
	static String listHeading(Viewer viewer, JobQuery query) {
		Html html = new Html();
		html.raw("<h1>")
			.text(((query.status() != null) ? capitalized(query.status().dbValue()) : "All") + " jobs")
			.raw("</h1>");
		filters(html, viewer, query);
		BulkPages.links(html, viewer, query);
		return html.toString();
	}

	static String list(Viewer viewer, JobQuery query, JobPage page, Instant now) {
		Html html = new Html();
		if (page.jobs().isEmpty()) {
			html.raw("<p id=\"no-jobs\">No job matches.</p>");
			return html.toString();
		}
		html.raw(
				"<div class=\"scroll\"><table id=\"jobs\"><thead><tr><th>Job</th><th>Type</th><th>Status</th><th>Key</th>")
			.raw("<th>Attempts</th><th>Created</th><th>Due / finished</th><th>Worker</th><th>Error code</th>")
			.raw("</tr></thead><tbody>");
		for (JobSummary job : page.jobs()) {
			summaryCells(html, viewer, job).element("td", job.attempts() + " of " + job.maxAttempts())
				.element("td", Formats.ago(job.createdAt(), now))
				.element("td", dueOrFinished(job, now))
				.element("td", job.workerId())
				.element("td", job.errorCode())
				.raw("</tr>");
		}
		html.raw("</tbody></table></div>");
		if (page.nextBefore() != null) {
			html.raw("<p><a rel=\"next\" id=\"next-page\"")
				.attr("href",
						listUrl(viewer, query.status(), query.type(), query.errorCode(), query.key(),
								page.nextBefore()))
				.raw(">Older jobs →</a></p>");
		}
		return html.toString();
	}

	private static String dueOrFinished(JobSummary job, Instant now) {
		if (job.finishedAt() != null) {
			return "finished " + Formats.ago(job.finishedAt(), now);
		}
		if (job.status() == JobStatus.WAITING) {
			// Its due time starts to count once what it waits for has finished.
			return "waits for other jobs";
		}
		return job.runAt().isAfter(now) ? "due in " + Formats.age(Duration.between(now, job.runAt()))
				: "due " + Formats.ago(job.runAt(), now);
	}

	static String listUrl(Viewer viewer, JobStatus status, String type, String errorCode, String key, Long before) {
		StringBuilder query = new StringBuilder();
		param(query, "status", (status != null) ? status.dbValue() : null);
		param(query, "type", type);
		param(query, "error", errorCode);
		param(query, "key", key);
		param(query, "before", (before != null) ? before.toString() : null);
		return viewer.url("/jobs") + query;
	}

	/**
	 * Adds {@code name=value} to a query string, the value encoded whole: a type or error
	 * code with {@code &}, {@code #} or {@code =} in it stays one value.
	 */
	static void param(StringBuilder query, String name, String value) {
		if (value != null) {
			query.append((query.length() == 0) ? '?' : '&').append(name).append('=').append(encode(value));
		}
	}

	static String encode(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
	}

	/**
	 * Opens a job's row in a list: its link, type, status and key (a link to the key's
	 * jobs), the cells every list of jobs starts with.
	 */
	static Html summaryCells(Html html, Viewer viewer, JobSummary job) {
		html.raw("<tr")
			.attr("data-job", job.id())
			.raw("><td>")
			.link(viewer.url("/jobs/" + job.id()), "#" + job.id())
			.raw("</td>")
			.element("td", job.type())
			.raw("<td>")
			.status(job.status(), job.status().dbValue())
			.raw("</td><td class=\"key\">");
		if (job.key() != null) {
			html.link(listUrl(viewer, null, null, null, job.key(), null), job.key());
		}
		return html.raw("</td>");
	}

	private static void filters(Html html, Viewer viewer, JobQuery query) {
		html.raw("<form class=\"filters\" method=\"get\"")
			.attr("action", viewer.url("/jobs"))
			.raw(">")
			.raw("<label>Status <select name=\"status\"><option value=\"\">any</option>");
		for (JobStatus status : Formats.statuses()) {
			html.raw("<option").attr("value", status.dbValue());
			if (status == query.status()) {
				html.raw(" selected");
			}
			html.raw(">").text(status.dbValue()).raw("</option>");
		}
		html.raw("</select></label>")
			.raw("<label>Type <input name=\"type\" autocomplete=\"off\"")
			.attr("value", query.type())
			.raw("></label>")
			.raw("<label>Error code <input name=\"error\" autocomplete=\"off\"")
			.attr("value", query.errorCode())
			.raw("></label>")
			.raw("<label>Key <input name=\"key\" autocomplete=\"off\"")
			.attr("value", query.key())
			.raw("></label><button type=\"submit\">Filter</button></form>");
	}

	/**
	 * @param chain the job's whole chain when it was read, or {@code null} (see
	 * {@link ChainSection.Chain})
	 */
	static String job(Viewer viewer, JobDetail detail, ChainSection.Chain chain, String notice, Instant now) {
		JobSummary job = detail.job();
		JobLinks links = detail.links();
		Html html = new Html();
		html.raw("<h1>Job <span id=\"job-id\">")
			.text("#" + job.id())
			.raw("</span> ")
			.raw("<span class=\"status ")
			.raw(job.status().dbValue())
			.raw("\" id=\"job-status\">")
			.text(job.status().dbValue())
			.raw("</span></h1>");
		if (notice != null) {
			html.raw("<p class=\"notice\" role=\"status\" id=\"notice\">").text(notice).raw("</p>");
		}
		actions(html, viewer, job, ChainSection.mayHaveUnfinishedSteps(links, chain));
		html.raw("<dl class=\"facts\">");
		fact(html, "Type", job.type());
		fact(html, "Key", (job.key() == null) ? "none" : job.key());
		fact(html, "Attempts", job.attempts() + " of " + job.maxAttempts());
		fact(html, "Priority", job.priority());
		fact(html, "Created", Formats.instant(job.createdAt()) + " (" + Formats.ago(job.createdAt(), now) + ")");
		fact(html, "Due", Formats.instant(job.runAt()));
		if (job.startedAt() != null) {
			fact(html, "Latest run started", Formats.instant(job.startedAt()) + " on " + job.workerId());
		}
		if (job.heartbeatAt() != null && job.status() == JobStatus.RUNNING) {
			fact(html, "Last heartbeat", Formats.ago(job.heartbeatAt(), now));
		}
		if (job.finishedAt() != null) {
			fact(html, "Finished", Formats.instant(job.finishedAt()));
		}
		if (detail.cancelRequested()) {
			fact(html, "Cancel", "requested, waiting for the handler to stop");
		}
		fact(html, "Dedup key",
				(detail.dedupKey() == null) ? "none" : viewer.showValues() ? detail.dedupKey() : HIDDEN);
		if (detail.traceParent() != null) {
			fact(html, "Trace", detail.traceParent());
		}
		html.raw("</dl>");
		ChainSection.render(html, viewer, job.id(), links, chain);
		if (job.status() == JobStatus.RUNNING || detail.progress() != null) {
			html.raw("<h2>Progress</h2><p>");
			ProgressBar.render(html, viewer, job.id(), detail.progress());
			html.raw("</p>");
		}
		if (job.errorCode() != null) {
			html.raw("<h2>Latest error</h2><p><code id=\"error-code\">")
				.text(job.errorCode())
				.raw("</code></p>")
				.raw("<pre id=\"error-detail\">")
				.text(viewer.showValues() ? detail.errorDetail() : HIDDEN)
				.raw("</pre>");
		}
		value(html, viewer, "Payload", "payload", detail.payload());
		if (detail.result() != null) {
			value(html, viewer, "Result", "result", detail.result());
		}
		steps(html, viewer, detail.steps());
		attempts(html, viewer, detail.attempts());
		events(html, viewer, detail.events());
		return html.toString();
	}

	private static void actions(Html html, Viewer viewer, JobSummary job, boolean chainUnfinished) {
		if (viewer.readOnly()) {
			return;
		}
		boolean retry = QueueDashboard.JobAction.RETRY.appliesTo(job.status());
		boolean cancel = QueueDashboard.JobAction.CANCEL.appliesTo(job.status());
		if (!retry && !cancel && !chainUnfinished) {
			return;
		}
		html.raw("<p class=\"actions\">");
		if (retry || cancel) {
			actionLink(html, viewer, job.id(), retry ? "retry" : "cancel", retry ? "Retry…" : "Cancel…");
		}
		if (chainUnfinished) {
			actionLink(html, viewer, job.id(), "cancel-chain", "Cancel chain…");
		}
		html.raw("</p>");
	}

	private static void actionLink(Html html, Viewer viewer, long id, String action, String label) {
		html.raw(" <a class=\"button\" id=\"action-")
			.raw(action)
			.raw("\"")
			.attr("href", viewer.url("/jobs/" + id + "/" + action))
			.attr("data-action", action)
			.raw(">")
			.text(label)
			.raw("</a>");
	}

	private static void value(Html html, Viewer viewer, String title, String id, Text text) {
		html.raw("<h2>").text(title).raw("</h2>");
		if (!viewer.showValues()) {
			html.raw("<p class=\"muted\" id=\"")
				.raw(id)
				.raw("\">")
				.text(Formats.count(text.length()) + " characters, " + HIDDEN)
				.raw("</p>");
			return;
		}
		html.raw("<pre id=\"").raw(id).raw("\">").text(text.preview()).raw("</pre>");
		if (text.truncated()) {
			html.raw("<p class=\"muted\">")
				.text("First " + Formats.count(text.preview() == null ? 0 : text.preview().length()) + " of "
						+ Formats.count(text.length()) + " characters " + "(jobqueue.observability.payload-preview)")
				.raw("</p>");
		}
	}

	/**
	 * The job's durable steps: which are done, by which run, and their results (their
	 * length only unless values are shown). Left out for a job that has none.
	 */
	private static void steps(Html html, Viewer viewer, List<Step> steps) {
		if (steps.isEmpty()) {
			return;
		}
		html.raw("<h2>Steps</h2>");
		html.raw("<div class=\"scroll\"><table id=\"steps\"><thead><tr><th>Step</th><th>Run</th><th>Attempt</th>")
			.raw("<th>Recorded</th><th>Took</th><th>Result</th></tr></thead><tbody>");
		for (Step step : steps) {
			html.raw("<tr>")
				.element("td", step.name())
				.element("td", step.run())
				.element("td", step.attempt())
				.element("td", Formats.instant(step.recordedAt()))
				.element("td", Formats.age(Duration.between(step.startedAt(), step.recordedAt())))
				.raw("<td>");
			Text result = step.result();
			if (result == null) {
				html.raw("<span class=\"muted\">none</span>");
			}
			else if (!viewer.showValues()) {
				html.raw("<span class=\"muted\">")
					.text(Formats.count(result.length()) + " characters, " + HIDDEN)
					.raw("</span>");
			}
			else {
				html.raw("<code>").text(result.preview()).raw("</code>").text(result.truncated() ? " …" : "");
			}
			html.raw("</td></tr>");
		}
		html.raw("</tbody></table></div>");
	}

	private static void attempts(Html html, Viewer viewer, List<Attempt> attempts) {
		html.raw("<h2>Attempts</h2>");
		if (attempts.isEmpty()) {
			html.raw("<p>Not run yet.</p>");
			return;
		}
		html.raw("<div class=\"scroll\"><table id=\"attempts\"><thead><tr><th>Run</th><th>Attempt</th><th>Worker</th>")
			.raw("<th>Started</th><th>Took</th><th>Outcome</th><th>Error</th></tr></thead><tbody>");
		for (Attempt attempt : attempts) {
			html.raw("<tr>")
				.element("td", attempt.run())
				.element("td", attempt.attempt())
				.element("td", attempt.workerId())
				.element("td", Formats.instant(attempt.startedAt()))
				.element("td",
						(attempt.finishedAt() != null)
								? Formats.age(Duration.between(attempt.startedAt(), attempt.finishedAt())) : "running")
				.element("td", (attempt.outcome() != null) ? attempt.outcome() : "RUNNING")
				.raw("<td>");
			if (attempt.errorCode() != null) {
				html.raw("<code>")
					.text(attempt.errorCode())
					.raw("</code> ")
					.text(viewer.showValues() ? attempt.errorDetail() : "");
			}
			html.raw("</td></tr>");
		}
		html.raw("</tbody></table></div>");
	}

	private static void events(Html html, Viewer viewer, List<Event> events) {
		html.raw("<h2>Timeline</h2><ol class=\"timeline\" id=\"events\">");
		for (Event event : events) {
			html.raw("<li><time")
				.attr("datetime", event.at().toString())
				.raw(">")
				.text(Formats.instant(event.at()))
				.raw("</time> <strong>")
				.text(event.event())
				.raw("</strong> ")
				.text((event.actor() != null) ? "by " + event.actor() + " " : "")
				.text(viewer.showValues() ? event.detail() : null)
				.raw("</li>");
		}
		html.raw("</ol>");
	}

	/** The page an action link leads to: what will happen, and a button that does it. */
	static String confirm(Viewer viewer, String question, String explanation, String postPath, String button,
			String backPath) {
		Html html = new Html();
		html.raw("<h1>")
			.text(question)
			.raw("</h1><p>")
			.text(explanation)
			.raw("</p>")
			.raw("<form method=\"post\" class=\"confirm\"")
			.attr("action", viewer.url(postPath))
			.raw(">");
		viewer.csrf(html);
		html.raw("<button type=\"submit\" id=\"confirm\" autofocus>")
			.text(button)
			.raw("</button> ")
			.raw("<a id=\"back\"")
			.attr("href", viewer.url(backPath))
			.raw(">No, go back</a></form>");
		return html.toString();
	}

	/**
	 * A page that says what went wrong and what to do, for 400, 403, 404 and 409 answers.
	 */
	static String message(Viewer viewer, String title, String text, String backPath, String backLabel) {
		Html html = new Html();
		html.raw("<h1 id=\"problem\">")
			.text(title)
			.raw("</h1><p id=\"problem-detail\">")
			.text(text)
			.raw("</p>")
			.raw("<p>")
			.link(viewer.url(backPath), backLabel)
			.raw("</p>");
		return html.toString();
	}

	private static void fact(Html html, String name, Object value) {
		html.raw("<div><dt>").text(name).raw("</dt><dd>").text(value).raw("</dd></div>");
	}

	private static String capitalized(String value) {
		return Character.toUpperCase(value.charAt(0)) + value.substring(1);
	}

}
