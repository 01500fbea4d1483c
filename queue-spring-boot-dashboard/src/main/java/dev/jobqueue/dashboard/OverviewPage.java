package dev.jobqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.jobqueue.JobStatus;
import dev.jobqueue.PausedType;
import dev.jobqueue.ScheduleInfo;
import dev.jobqueue.views.JobProgress;
import dev.jobqueue.views.JobSummary;
import dev.jobqueue.views.Outcomes;
import dev.jobqueue.views.QueueSnapshot.ErrorCount;
import dev.jobqueue.views.QueueSnapshot.FlowState;
import dev.jobqueue.views.QueueSnapshot.WorkerState;
import dev.jobqueue.views.QueueSnapshot;

/**
 * The overview: what needs attention first (stuck jobs, unhandled types, failures), then
 * the counts, the chart, the running jobs, errors, types, workers and schedules. Sections
 * keep their order so a person on call finds them where they were.
 */
final class OverviewPage {

	/**
	 * What the overview shows.
	 *
	 * @param snapshot the queue's state
	 * @param outcomes runs ended per minute over the period shown
	 * @param day whether the period is the last day (else the last hour)
	 * @param paused paused types
	 * @param schedules recurring schedules
	 * @param stuckAfter the stuck-after setting
	 * @param progress progress of running jobs by id
	 */
	record Data(QueueSnapshot snapshot, List<Outcomes> outcomes, boolean day, List<PausedType> paused,
			List<ScheduleInfo> schedules, Duration stuckAfter, Map<Long, JobProgress> progress) {

	}

	private OverviewPage() {
	}

	static String render(Viewer viewer, Data data) {
		QueueSnapshot snapshot = data.snapshot();
		Instant now = snapshot.at();
		Html html = new Html();
		html.raw("<h1>Queue overview</h1>");
		attention(html, viewer, data);
		counts(html, viewer, snapshot);
		html.raw("<section aria-labelledby=\"outcomes-title\"><h2 id=\"outcomes-title\">Runs ended per minute, ")
			.text(data.day() ? "last day" : "last hour")
			.raw("</h2><p class=\"switch\">");
		if (data.day()) {
			html.link(viewer.url("/"), "Show the last hour");
		}
		else {
			html.link(viewer.url("/?window=day"), "Show the last day");
		}
		html.raw("</p>");
		OutcomeChart.render(html, data.outcomes(), data.day() ? "Last day" : "Last hour");
		html.raw("</section>");
		running(html, viewer, snapshot, data.progress(), now);
		errors(html, viewer, snapshot);
		flow(html, viewer, snapshot);
		types(html, viewer, data);
		workers(html, snapshot, now);
		schedules(html, viewer, data.schedules(), now);
		return html.toString();
	}

	private static void attention(Html html, Viewer viewer, Data data) {
		QueueSnapshot snapshot = data.snapshot();
		html.raw("<section aria-labelledby=\"attention-title\" class=\"attention\">")
			.raw("<h2 id=\"attention-title\">Needs attention</h2><ul id=\"attention\">");
		boolean any = false;
		if (snapshot.stuck().count() > 0) {
			any = true;
			html.raw("<li class=\"bad\">")
				.text(Formats.count(snapshot.stuck().count()) + " running job(s) without a "
						+ "heartbeat for more than " + Formats.age(data.stuckAfter()) + ": ");
			for (JobSummary job : snapshot.stuck().oldest()) {
				html.link(viewer.url("/jobs/" + job.id()), "#" + job.id())
					.text(" (" + job.type() + " on " + job.workerId() + ", last heartbeat "
							+ Formats.ago(job.heartbeatAt(), snapshot.at()) + ") ");
			}
			html.raw("</li>");
		}
		if (!snapshot.unhandled().isEmpty()) {
			any = true;
			html.raw("<li class=\"bad\">Pending jobs no live worker handles: ");
			snapshot.unhandled().forEach((type, count) -> html.text(type + " (" + Formats.count(count) + ") "));
			html.raw("</li>");
		}
		long failed = snapshot.countsByStatus().get(JobStatus.FAILED);
		if (failed > 0) {
			any = true;
			html.raw("<li class=\"warn\">")
				.link(viewer.url("/jobs?status=failed"), Formats.count(failed) + " failed job(s)")
				.raw("</li>");
		}
		for (Map.Entry<String, FlowState> flow : snapshot.flow().entrySet()) {
			FlowState state = flow.getValue();
			if (state.blockedKeys() > 0) {
				any = true;
				html.raw("<li class=\"warn\"")
					.attr("data-blocked", flow.getKey())
					.raw(">")
					.text(Formats.count(state.blockedKeys()) + " key(s) of " + flow.getKey()
							+ " blocked by a failed job, " + Formats.count(state.blocked())
							+ " due job(s) behind them: ")
					.link(keysUrl(viewer, flow.getKey()), "see its keys")
					.raw("</li>");
			}
		}
		for (PausedType paused : data.paused()) {
			any = true;
			html.raw("<li class=\"warn\">")
				.text("Type " + paused.type() + " is paused since " + Formats.instant(paused.since()))
				.raw("</li>");
		}
		if (!any) {
			html.raw("<li class=\"good\">Nothing: no stuck, unhandled, failed or paused jobs.</li>");
		}
		html.raw("</ul></section>");
	}

	private static void counts(Html html, Viewer viewer, QueueSnapshot snapshot) {
		Map<JobStatus, Long> counts = snapshot.countsByStatus();
		html.raw("<section aria-labelledby=\"counts-title\"><h2 id=\"counts-title\">Jobs by status</h2>")
			.raw("<dl class=\"tiles\" id=\"counts\">");
		long total = 0;
		for (JobStatus status : Formats.statuses()) {
			long count = counts.get(status);
			total += count;
			html.raw("<div class=\"tile ")
				.raw(status.dbValue())
				.raw("\"><dt>")
				.link(viewer.url("/jobs?status=" + status.dbValue()), status.dbValue())
				.raw("</dt><dd")
				.attr("data-count", status.dbValue())
				.raw(">")
				.text(Formats.count(count))
				.raw("</dd></div>");
		}
		html.raw("<div class=\"tile\"><dt>")
			.link(viewer.url("/jobs"), "total")
			.raw("</dt><dd data-count=\"total\">")
			.text(Formats.count(total))
			.raw("</dd></div></dl>");
		long pending = counts.get(JobStatus.PENDING);
		html.raw("<p id=\"claimable\">")
			.text(Formats.count(snapshot.claimable()) + " pending job(s) due now, "
					+ Formats.count(pending - snapshot.claimable()) + " scheduled for later or waiting out a backoff, ")
			.link(viewer.url("/jobs?status=waiting"),
					Formats.count(counts.get(JobStatus.WAITING)) + " waiting for other jobs")
			.text(". ");
		JobSummary oldest = snapshot.oldestClaimable();
		if (oldest != null) {
			html.text("Oldest due: ")
				.link(viewer.url("/jobs/" + oldest.id()), "#" + oldest.id())
				.text(" (" + oldest.type() + "), waiting ")
				.raw("<strong id=\"oldest-age\">")
				.text(Formats.age(snapshot.oldestClaimableAge()))
				.raw("</strong>.");
		}
		html.raw("</p></section>");
	}

	private static void running(Html html, Viewer viewer, QueueSnapshot snapshot, Map<Long, JobProgress> progress,
			Instant now) {
		html.raw("<section aria-labelledby=\"running-title\"><h2 id=\"running-title\">Running longest</h2>");
		if (snapshot.oldestRunning().isEmpty()) {
			html.raw("<p>No job is running.</p></section>");
			return;
		}
		html.raw("<div class=\"scroll\"><table id=\"running\"><thead><tr><th>Job</th><th>Type</th><th>Worker</th>")
			.raw("<th>Running for</th><th>Last heartbeat</th><th>Progress</th></tr></thead><tbody>");
		for (JobSummary job : snapshot.oldestRunning()) {
			html.raw("<tr><td>")
				.link(viewer.url("/jobs/" + job.id()), "#" + job.id())
				.raw("</td>")
				.element("td", job.type())
				.element("td", job.workerId())
				.element("td", Formats.age(Duration.between(job.startedAt(), now)))
				.element("td", Formats.ago(job.heartbeatAt(), now))
				.raw("<td>");
			ProgressBar.render(html, viewer, job.id(), progress.get(job.id()));
			html.raw("</td></tr>");
		}
		html.raw("</tbody></table></div></section>");
	}

	private static void errors(Html html, Viewer viewer, QueueSnapshot snapshot) {
		html.raw("<section aria-labelledby=\"errors-title\"><h2 id=\"errors-title\">Top error codes</h2>");
		QueueSnapshot.ErrorSummary errors = snapshot.errors();
		if (errors.top().isEmpty()) {
			html.raw("<p>No failed or retrying job.</p></section>");
			return;
		}
		html.raw("<div class=\"scroll\"><table id=\"errors\"><thead><tr><th>Error code</th><th>Jobs</th>")
			.raw("<th>Failed</th><th>Retrying</th><th>Types</th></tr></thead><tbody>");
		for (ErrorCount error : errors.top()) {
			html.raw("<tr><td>")
				.link(JobPages.listUrl(viewer, null, null, error.code(), null, null), error.code())
				.raw("</td>")
				.element("td", Formats.count(error.count()))
				.element("td", Formats.count(error.failed()))
				.element("td", Formats.count(error.retrying()))
				.raw("<td>");
			error.byType().forEach((type, count) -> html.text(type + " " + Formats.count(count) + " "));
			html.raw("</td></tr>");
		}
		html.raw("</tbody></table></div>");
		if (errors.other() > 0) {
			html.raw("<p>")
				.text(Formats.count(errors.other()) + " more job(s) with "
						+ (errors.distinctCodes() - errors.top().size()) + " other code(s).")
				.raw("</p>");
		}
		html.raw("</section>");
	}

	/**
	 * Per type with flow control here: its limits and its due jobs they hold back, by
	 * reason. Absent when no handler of this process has limits.
	 */
	private static void flow(Html html, Viewer viewer, QueueSnapshot snapshot) {
		if (snapshot.flow().isEmpty()) {
			return;
		}
		html.raw("<section aria-labelledby=\"flow-title\"><h2 id=\"flow-title\">Flow control</h2>")
			.raw("<div class=\"scroll\"><table id=\"flow\"><thead><tr><th>Type</th><th>Limits</th><th>Due</th>");
		for (String reason : FlowState.REASONS) {
			html.raw("<th>").text("Held: " + reason).raw("</th>");
		}
		html.raw("<th>Blocked keys</th><th>Keys</th></tr></thead><tbody>");
		snapshot.flow().forEach((type, state) -> {
			html.raw("<tr").attr("data-type", type).raw(">").element("td", type);
			html.element("td", KeysPage.describe(state.flowControl()));
			html.element("td", Formats.count(state.due()));
			state.throttled()
				.forEach((reason, count) -> html.raw("<td")
					.attr("data-reason", reason)
					.raw(">")
					.text(Formats.count(count))
					.raw("</td>"));
			html.element("td", Formats.count(state.blockedKeys())).raw("<td>");
			html.link(keysUrl(viewer, type), "Keys").raw("</td></tr>");
		});
		html.raw("</tbody></table></div></section>");
	}

	static String keysUrl(Viewer viewer, String type) {
		return viewer.url("/keys?type=" + JobPages.encode(type));
	}

	private static void types(Html html, Viewer viewer, Data data) {
		QueueSnapshot snapshot = data.snapshot();
		Set<String> types = new TreeSet<>(snapshot.counts().keySet());
		data.paused().forEach((paused) -> types.add(paused.type()));
		Set<String> pausedTypes = new TreeSet<>();
		data.paused().forEach((paused) -> pausedTypes.add(paused.type()));
		html.raw("<section aria-labelledby=\"types-title\"><h2 id=\"types-title\">Job types</h2>");
		if (types.isEmpty()) {
			html.raw("<p>No jobs yet.</p></section>");
			return;
		}
		html.raw("<div class=\"scroll\"><table id=\"types\"><thead><tr><th>Type</th>");
		for (JobStatus status : Formats.statuses()) {
			html.element("th", status.dbValue());
		}
		html.raw("<th>Attempts used (jobs)</th><th>State</th></tr></thead><tbody>");
		for (String type : types) {
			Map<JobStatus, Long> counts = snapshot.counts().getOrDefault(type, Map.of());
			html.raw("<tr")
				.attr("data-type", type)
				.raw("><td>")
				.link(JobPages.listUrl(viewer, null, type, null, null, null), type)
				.raw(" <a class=\"keys-link\"")
				.attr("href", keysUrl(viewer, type))
				.raw(">keys</a></td>");
			for (JobStatus status : Formats.statuses()) {
				long count = counts.getOrDefault(status, 0L);
				html.raw("<td>");
				if (count > 0) {
					html.link(JobPages.listUrl(viewer, status, type, null, null, null), Formats.count(count));
				}
				else {
					html.text("0");
				}
				html.raw("</td>");
			}
			html.raw("<td>");
			snapshot.retriesByType()
				.getOrDefault(type, Map.of())
				.forEach((attempts, count) -> html.text(attempts + "×: " + Formats.count(count) + " "));
			html.raw("</td><td>");
			boolean paused = pausedTypes.contains(type);
			html.text(paused ? "paused " : "active ");
			if (!viewer.readOnly()) {
				String action = paused ? "resume" : "pause";
				html.raw("<a class=\"button\"")
					.attr("href", viewer.url("/types/" + action + "?type=" + JobPages.encode(type)))
					.attr("data-action", action)
					.raw(">")
					.text(paused ? "Resume" : "Pause")
					.raw("</a>");
			}
			html.raw("</td></tr>");
		}
		html.raw("</tbody></table></div>");
		html.raw("<p>").text("Attempts used over unfinished and failed jobs: ");
		snapshot.retries().forEach((attempts, count) -> html.text(attempts + "×: " + Formats.count(count) + "  "));
		html.raw("</p></section>");
	}

	private static void workers(Html html, QueueSnapshot snapshot, Instant now) {
		List<WorkerState> workers = snapshot.workers();
		long alive = workers.stream().filter(WorkerState::alive).count();
		html.raw("<section aria-labelledby=\"workers-title\"><h2 id=\"workers-title\">Workers: ")
			.text(alive + " alive of " + workers.size())
			.raw("</h2>");
		if (workers.isEmpty()) {
			html.raw("<p>No worker is registered.</p></section>");
			return;
		}
		html.raw("<div class=\"scroll\"><table id=\"workers\"><thead><tr><th>Worker</th><th>Host</th><th>PID</th>")
			.raw("<th>Types</th><th>Slots</th><th>Last heartbeat</th><th>State</th></tr></thead><tbody>");
		for (WorkerState worker : workers) {
			html.raw("<tr>")
				.element("td", worker.workerId())
				.element("td", worker.host())
				.element("td", worker.pid())
				.element("td", String.join(", ", worker.types()))
				.element("td", worker.concurrency())
				.element("td", Formats.ago(worker.heartbeatAt(), now))
				.element("td", worker.alive() ? "alive" : "gone")
				.raw("</tr>");
		}
		html.raw("</tbody></table></div></section>");
	}

	private static void schedules(Html html, Viewer viewer, List<ScheduleInfo> schedules, Instant now) {
		html.raw("<section aria-labelledby=\"schedules-title\"><h2 id=\"schedules-title\">Schedules</h2>");
		if (schedules.isEmpty()) {
			html.raw("<p>No recurring schedule.</p></section>");
			return;
		}
		html.raw("<div class=\"scroll\"><table id=\"schedules\"><thead><tr><th>Name</th><th>Type</th><th>When</th>")
			.raw("<th>Next run</th><th>Last job</th><th>State</th></tr></thead><tbody>");
		for (ScheduleInfo schedule : schedules) {
			html.raw("<tr>")
				.element("td", schedule.name())
				.element("td", schedule.type())
				.element("td", schedule.expression() + " (" + schedule.zone() + ")")
				.element("td",
						Formats.instant(schedule.nextRunAt()) + " (in "
								+ Formats.age(Duration.between(now, schedule.nextRunAt())) + ")")
				.raw("<td>");
			if (schedule.lastJobId() != null) {
				html.link(viewer.url("/jobs/" + schedule.lastJobId()), "#" + schedule.lastJobId());
			}
			html.raw("</td>")
				.element("td", schedule.paused() ? "paused" : schedule.live() ? "active" : "no process declares it")
				.raw("</tr>");
		}
		html.raw("</tbody></table></div></section>");
	}

}
