package dev.jobqueue.dashboard;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import dev.jobqueue.BulkAction;
import dev.jobqueue.BulkRequest;
import dev.jobqueue.BulkResult;
import dev.jobqueue.ErrorCodes;
import dev.jobqueue.Job;
import dev.jobqueue.JobFilter;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.ScheduleInfo;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.views.Event;
import dev.jobqueue.views.JobDetail;
import dev.jobqueue.views.JobLinks;
import dev.jobqueue.views.JobPage;
import dev.jobqueue.views.JobProgress;
import dev.jobqueue.views.JobQuery;
import dev.jobqueue.views.JobSearch;
import dev.jobqueue.views.JobSummary;
import dev.jobqueue.views.KeyQuery;
import dev.jobqueue.views.Outcomes;
import dev.jobqueue.views.QueueSnapshot;
import dev.jobqueue.views.QueueViews;
import dev.jobqueue.views.SearchResult;
import dev.jobqueue.views.SnapshotSettings;
import dev.jobqueue.views.TypeKeys;

/**
 * The dashboard's pages and actions, independent of HTTP: each method reads the queue,
 * renders a page and says which status it answers with. {@link DashboardRoutes} maps
 * requests to it. Public so an application (or a benchmark) can render a page itself. It
 * takes the queue's services and the values of the settings it reads with, not the
 * properties they are bound from.
 */
public final class QueueDashboard {

	/** Jobs per list page. */
	static final int PAGE_SIZE = 25;

	/**
	 * Longest chain a job's page reads in full (to number its steps and count what is
	 * unfinished); a longer one shows the first steps its links list. The page refreshes
	 * every few seconds, so reading a fan-out of 100,000 steps each time is not worth it.
	 */
	static final int CHAIN_READ_LIMIT = 1_000;

	private static final Duration MINUTE = Duration.ofMinutes(1);

	/** How long after an action its page still says it was done. */
	private static final Duration NOTICE_WINDOW = Duration.ofMinutes(1);

	private final QueueViews views;

	private final JobQueue queue;

	private final Supplier<List<ScheduleInfo>> schedules;

	private final SnapshotSettings snapshotSettings;

	private final int payloadPreview;

	private final Clock clock;

	private final Supplier<Map<String, FlowControl>> flowControls;

	/**
	 * @param schedules the application's schedules as they stand now
	 * @param snapshotSettings what the overview's snapshot of the queue looks at
	 * (stuck-after, Top-N error codes, when a worker counts as dead)
	 * @param payloadPreview characters of a job's payload and result shown when values
	 * are shown; 0 shows only their length
	 */
	public QueueDashboard(QueueViews views, JobQueue queue, Supplier<List<ScheduleInfo>> schedules,
			SnapshotSettings snapshotSettings, int payloadPreview, Clock clock) {
		this(views, queue, schedules, snapshotSettings, payloadPreview, clock, Map::of);
	}

	/**
	 * @param schedules the application's schedules as they stand now
	 * @param snapshotSettings what the overview's snapshot of the queue looks at
	 * (stuck-after, Top-N error codes, when a worker counts as dead)
	 * @param payloadPreview characters of a job's payload and result shown when values
	 * are shown; 0 shows only their length
	 * @param flowControls the flow control of each type this process handles with limits,
	 * as it stands now: the overview counts their held jobs, the keys page marks blocked
	 * keys
	 */
	public QueueDashboard(QueueViews views, JobQueue queue, Supplier<List<ScheduleInfo>> schedules,
			SnapshotSettings snapshotSettings, int payloadPreview, Clock clock,
			Supplier<Map<String, FlowControl>> flowControls) {
		this.flowControls = (flowControls != null) ? flowControls : Map::of;
		this.views = Objects.requireNonNull(views, "'views' must not be null");
		this.queue = Objects.requireNonNull(queue, "'queue' must not be null");
		this.schedules = (schedules != null) ? schedules : List::of;
		this.snapshotSettings = Objects.requireNonNull(snapshotSettings, "'snapshotSettings' must not be null");
		this.payloadPreview = Math.max(0, payloadPreview);
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
	}

	/**
	 * A rendered page.
	 *
	 * @param status the HTTP status to answer with
	 * @param html the page
	 * @param redirect where to send the browser instead (303 See Other), or {@code null}
	 */
	public record Page(int status, String html, String redirect) {

		static Page ok(String html) {
			return new Page(200, html, null);
		}

		static Page seeOther(String location) {
			return new Page(303, "", location);
		}

	}

	/**
	 * The overview, with the chart of the last hour or, with {@code day}, the last day.
	 */
	Page overview(Viewer viewer, boolean day) {
		Instant now = this.clock.instant();
		QueueSnapshot snapshot = this.views.snapshot(now,
				this.snapshotSettings.withFlowControls(this.flowControls.get()));
		List<Outcomes> outcomes = this.views
			.outcomes(now.minus(day ? Duration.ofDays(1) : Duration.ofHours(1)).plus(MINUTE), now, MINUTE);
		Map<Long, JobProgress> progress = this.views
			.progress(snapshot.oldestRunning().stream().map(JobSummary::id).toList(), viewer.values());
		OverviewPage.Data data = new OverviewPage.Data(snapshot, outcomes, day, this.queue.pausedTypes(),
				this.schedules.get(), this.snapshotSettings.stuckAfter(), progress);
		return Page.ok(Layout.page(viewer, "Overview", "overview", now, "", OverviewPage.render(viewer, data), true));
	}

	/**
	 * Renders the overview as a page for {@code base} without a request, for benchmarks.
	 */
	public String overviewHtml(String base) {
		return overview(new Viewer(base, false, true, null, null, 3000), false).html();
	}

	/**
	 * The keys of a type: its blocked keys and its busiest, with the type's held jobs
	 * when it has flow control here.
	 */
	Page keys(Viewer viewer, String type) {
		Instant now = this.clock.instant();
		FlowControl flow = this.flowControls.get().getOrDefault(type, FlowControl.NONE);
		TypeKeys keys = this.views.keys(new KeyQuery(type, flow, now, KeyQuery.DEFAULT_LIMIT));
		QueueSnapshot.FlowState state = null;
		if (flow.limits()) {
			state = this.views.flow(now, Map.of(type, flow)).get(type);
		}
		return Page.ok(Layout.page(viewer, "Keys of " + type, "", now, KeysPage.heading(type, flow),
				KeysPage.render(viewer, keys, state), true));
	}

	Page jobs(Viewer viewer, JobQuery query) {
		Instant now = this.clock.instant();
		JobPage page = this.views.jobs(query);
		String section = (query.status() == null) ? "all" : query.status().dbValue();
		return Page.ok(Layout.page(viewer, "Jobs", section, now, JobPages.listHeading(viewer, query),
				JobPages.list(viewer, query, page, now), true));
	}

	/**
	 * @param done the action the page was sent back from ({@code ?done=}), or
	 * {@code null}: its notice shows only if the job's timeline has that action in the
	 * last minute, so a link with {@code ?done=retry} says nothing that did not happen
	 */
	Page job(Viewer viewer, long id, JobAction done) {
		Instant now = this.clock.instant();
		Optional<JobDetail> detail = this.views.job(id, this.payloadPreview, viewer.values());
		if (detail.isEmpty()) {
			return noSuchJob(viewer, id);
		}
		ChainSection.Chain chain = readChain(detail.get().links());
		String notice = (done != null && happened(done, detail.get(), chain, now.minus(NOTICE_WINDOW))) ? done.notice()
				: null;
		return Page.ok(Layout.page(viewer, "Job " + id, "", now, "",
				JobPages.job(viewer, detail.get(), chain, notice, now), true));
	}

	/**
	 * Whether an operator did {@code action} to this job (or, for a chain, to a step of
	 * its chain) at or after {@code since}.
	 */
	private static boolean happened(JobAction action, JobDetail detail, ChainSection.Chain chain, Instant since) {
		if (action.happened(detail.events(), since)) {
			return true;
		}
		return action == JobAction.CANCEL_CHAIN && chain != null
				&& chain.steps()
					.stream()
					.anyMatch((step) -> step.cancelRequested() || (ErrorCodes.CANCELLED_CHAIN.equals(step.errorCode())
							&& step.finishedAt() != null && !step.finishedAt().isBefore(since)));
	}

	/**
	 * The whole chain, if the job is in one that is short enough to read on each refresh.
	 */
	private ChainSection.Chain readChain(JobLinks links) {
		if (links.chainId() == null || links.chainLength() > CHAIN_READ_LIMIT) {
			return null;
		}
		return ChainSection.Chain.of(this.queue.findChain(links.chainId()));
	}

	/** The confirmation page of a retry or cancel. */
	Page confirmJobAction(Viewer viewer, long id, JobAction action) {
		Optional<Job> job = this.queue.find(id);
		if (job.isEmpty()) {
			return noSuchJob(viewer, id);
		}
		if (action == JobAction.CANCEL_CHAIN) {
			return confirmCancelChain(viewer, job.get());
		}
		if (!action.appliesTo(job.get().status())) {
			return movedOn(viewer, id, action, job.get().status());
		}
		String question = action.label() + " job #" + id + "?";
		return page(viewer, 200, question,
				JobPages.confirm(viewer, question, action.explanation(job.get().type(), job.get().status()),
						"/jobs/" + id + "/" + action.path(), "Yes, " + action.path(), "/jobs/" + id));
	}

	/**
	 * Retries or cancels a job, if it is still in a state that allows it; nothing changes
	 * otherwise.
	 */
	Page jobAction(Viewer viewer, long id, JobAction action) {
		Optional<Job> job = this.queue.find(id);
		if (job.isEmpty()) {
			return noSuchJob(viewer, id);
		}
		if (action == JobAction.CANCEL_CHAIN) {
			return cancelChain(viewer, job.get());
		}
		boolean applied;
		try {
			applied = (action == JobAction.RETRY) ? this.queue.retry(id) : this.queue.cancel(id);
		}
		catch (JobQueueException ex) {
			return page(viewer, 409, "Job #" + id + " was not changed", JobPages.message(viewer,
					"Job #" + id + " was not changed", ex.getMessage(), "/jobs/" + id, "Back to job #" + id));
		}
		if (!applied) {
			JobStatus now = this.queue.find(id).map(Job::status).orElse(job.get().status());
			return movedOn(viewer, id, action, now);
		}
		return Page.seeOther(viewer.url("/jobs/" + id + "?done=" + action.path()));
	}

	private Page confirmCancelChain(Viewer viewer, Job job) {
		Long chainId = job.chainId();
		if (chainId == null) {
			return notInAChain(viewer, job.id());
		}
		List<Job> steps = this.queue.findChain(chainId);
		long unfinished = steps.stream().filter((step) -> ChainSection.unfinished(step.status())).count();
		if (unfinished == 0) {
			return chainFinished(viewer, job.id(), chainId);
		}
		long running = steps.stream().filter((step) -> step.status() == JobStatus.RUNNING).count();
		String question = "Cancel the chain of job #" + job.id() + "?";
		String explanation = "Chain #" + chainId + " has " + steps.size() + " job(s), " + unfinished
				+ " of them unfinished. Its waiting and pending jobs will not run"
				+ ((running > 0) ? ", its " + running + " running job(s) are interrupted" : "")
				+ ", and no step after them is created. Jobs outside the chain that wait for one of them follow "
				+ "their dependency policy. Finished jobs stay as they are.";
		return page(viewer, 200, question, JobPages.confirm(viewer, question, explanation,
				"/jobs/" + job.id() + "/cancel-chain", "Yes, cancel the chain", "/jobs/" + job.id()));
	}

	private Page cancelChain(Viewer viewer, Job job) {
		Long chainId = job.chainId();
		if (chainId == null) {
			return notInAChain(viewer, job.id());
		}
		int cancelled;
		try {
			cancelled = this.queue.cancelChain(chainId);
		}
		catch (JobQueueException ex) {
			return page(viewer, 409, "Chain #" + chainId + " was not changed",
					JobPages.message(viewer, "Chain #" + chainId + " was not changed", ex.getMessage(),
							"/jobs/" + job.id(), "Back to job #" + job.id()));
		}
		if (cancelled == 0) {
			return chainFinished(viewer, job.id(), chainId);
		}
		return Page.seeOther(viewer.url("/jobs/" + job.id() + "?done=cancel-chain"));
	}

	private Page notInAChain(Viewer viewer, long id) {
		String title = "Job #" + id + " is in no chain";
		return page(viewer, 409, title,
				JobPages.message(viewer, title,
						"Only a job that is a step of a chain has a chain to cancel. Nothing was changed.",
						"/jobs/" + id, "Back to job #" + id));
	}

	private Page chainFinished(Viewer viewer, long id, long chainId) {
		String title = "Chain #" + chainId + " was not cancelled";
		return page(viewer, 409, title,
				JobPages.message(viewer, title,
						"Every job of it has finished, so there is nothing left to cancel. Nothing was changed.",
						"/jobs/" + id, "Back to job #" + id));
	}

	/**
	 * The search page: jobs found by {@code text}, values searched only for a viewer who
	 * may see them.
	 */
	Page search(Viewer viewer, String text) {
		Instant now = this.clock.instant();
		if (text == null) {
			return Page.ok(Layout.page(viewer, "Search", "", now, SearchPage.heading(viewer, null),
					"<p class=\"hint\">Type a job id, an error code, a dedup key or any text.</p>", false));
		}
		SearchResult result = this.views.search(JobSearch.of(text), viewer.values());
		return Page.ok(Layout.page(viewer, "Search: " + text, "", now, SearchPage.heading(viewer, text),
				SearchPage.results(viewer, result, now), true));
	}

	/**
	 * The confirmation of a bulk action on the jobs a list shows, with how many it
	 * touches now (a dry run).
	 */
	Page confirmBulk(Viewer viewer, BulkAction action, JobQuery query) {
		JobFilter filter = BulkPages.filter(query);
		String listPath = JobPages.listUrl(viewer, query.status(), query.type(), query.errorCode(), query.key(), null);
		String back = listPath.substring(viewer.url("").length());
		long matched = this.queue.bulk(BulkRequest.of(action, filter).dryRun()).matched();
		if (matched == 0) {
			return noBulkMatch(viewer, action, filter, back);
		}
		String question = BulkPages.question(action, matched);
		return page(viewer, 200, question,
				JobPages.confirm(viewer, question, BulkPages.explanation(action, filter, matched),
						BulkPages.path(action, query), "Yes, " + action.word() + " them", back));
	}

	/** Runs a bulk action on the jobs a list shows and says what it did. */
	Page bulk(Viewer viewer, BulkAction action, JobQuery query) {
		JobFilter filter = BulkPages.filter(query);
		String back = JobPages.listUrl(viewer, query.status(), query.type(), query.errorCode(), query.key(), null)
			.substring(viewer.url("").length());
		// The person confirmed on a page that said how many: above the bound too.
		BulkResult result = this.queue.bulk(BulkRequest.of(action, filter).confirmed());
		if (result.matched() == 0) {
			return noBulkMatch(viewer, action, filter, back);
		}
		String title = Formats.count(result.applied()) + " job(s) " + BulkPages.done(action);
		return page(viewer, 200, title, BulkPages.result(viewer, result, back));
	}

	private Page noBulkMatch(Viewer viewer, BulkAction action, JobFilter filter, String back) {
		String title = "No job to " + action.word();
		return page(viewer, 409, title,
				JobPages.message(viewer, title,
						"No " + action.statusWords() + " job matches " + filter
								+ " now: someone may have acted on them already. Nothing was changed.",
						back, "Back to the jobs"));
	}

	/** The confirmation page of pausing or resuming a type. */
	Page confirmTypeAction(Viewer viewer, String type, boolean pause) {
		boolean paused = isPaused(type);
		if (paused == pause) {
			return typeUnchanged(viewer, type, pause);
		}
		String question = (pause ? "Pause" : "Resume") + " job type " + type + "?";
		String explanation = pause
				? "No process will start jobs of type " + type + " until it is resumed; running jobs finish, "
						+ "enqueueing goes on and its schedules wait."
				: "Processes will start pending jobs of type " + type + " again with their next claim.";
		return page(viewer, 200, question,
				JobPages.confirm(viewer, question, explanation,
						"/types/" + (pause ? "pause" : "resume") + "?type=" + JobPages.encode(type),
						pause ? "Yes, pause" : "Yes, resume", "/"));
	}

	Page typeAction(Viewer viewer, String type, boolean pause) {
		boolean applied = pause ? this.queue.pause(type) : this.queue.resume(type);
		if (!applied) {
			return typeUnchanged(viewer, type, pause);
		}
		return Page.seeOther(viewer.url("/"));
	}

	private boolean isPaused(String type) {
		return this.queue.pausedTypes().stream().anyMatch((paused) -> paused.type().equals(type));
	}

	private Page typeUnchanged(Viewer viewer, String type, boolean pause) {
		String title = "Job type " + type + " is " + (pause ? "already paused" : "not paused");
		return page(viewer, 409, title,
				JobPages.message(viewer, title,
						"Nothing was changed: someone else may have " + (pause ? "paused" : "resumed") + " it already.",
						"/", "Back to the overview"));
	}

	private Page noSuchJob(Viewer viewer, long id) {
		String title = "There is no job #" + id;
		return page(viewer, 404, title,
				JobPages.message(viewer, title,
						"It was never enqueued, or it finished and " + "was deleted once its retention passed.",
						"/jobs", "See all jobs"));
	}

	private Page movedOn(Viewer viewer, long id, JobAction action, JobStatus status) {
		String title = "Job #" + id + " was not " + action.done();
		return page(viewer, 409, title,
				JobPages.message(viewer, title,
						"It is " + status.dbValue() + " now, and " + action.rule() + " Nothing was changed.",
						"/jobs/" + id, "Back to job #" + id));
	}

	/** A page that says no (or a confirmation), with the status to answer with. */
	Page page(Viewer viewer, int status, String title, String body) {
		return new Page(status, Layout.page(viewer, title, "", this.clock.instant(), body, "", false), null);
	}

	/** What can be done to one job. */
	enum JobAction {

		RETRY("retry", "Retry", "retried", "only failed or cancelled jobs can be retried.",
				"Job put back to pending: it runs again soon.", Set.of("RETRIED")),

		CANCEL("cancel", "Cancel", "cancelled", "only waiting, pending or running jobs can be cancelled.",
				"Cancel requested.", Set.of("CANCELLED", "CANCEL_REQUESTED")),

		/**
		 * Every unfinished step of the job's chain; decided by the chain, not the job.
		 */
		CANCEL_CHAIN("cancel-chain", "Cancel the chain of", "cancelled",
				"only a chain with unfinished jobs can be cancelled.",
				"Chain cancelled: its waiting and pending jobs will not run, running ones are interrupted.",
				Set.of("CANCELLED", "CANCEL_REQUESTED"));

		private final String path;

		private final String label;

		private final String done;

		private final String rule;

		private final String notice;

		/** The timeline's events this action writes, by an operator ("api"). */
		private final Set<String> events;

		JobAction(String path, String label, String done, String rule, String notice, Set<String> events) {
			this.path = path;
			this.label = label;
			this.done = done;
			this.rule = rule;
			this.notice = notice;
			this.events = events;
		}

		String notice() {
			return this.notice;
		}

		/** Whether an operator did this to the job at or after {@code since}. */
		boolean happened(List<Event> timeline, Instant since) {
			return timeline.stream()
				.anyMatch((event) -> this.events.contains(event.event()) && "api".equals(event.actor())
						&& !event.at().isBefore(since));
		}

		static Optional<JobAction> of(String path) {
			for (JobAction action : values()) {
				if (action.path.equals(path)) {
					return Optional.of(action);
				}
			}
			return Optional.empty();
		}

		String path() {
			return this.path;
		}

		String label() {
			return this.label;
		}

		String done() {
			return this.done;
		}

		String rule() {
			return this.rule;
		}

		boolean appliesTo(JobStatus status) {
			return switch (this) {
				case RETRY -> status == JobStatus.FAILED || status == JobStatus.CANCELLED;
				case CANCEL -> ChainSection.unfinished(status);
				case CANCEL_CHAIN -> true;
			};
		}

		String explanation(String type, JobStatus status) {
			return (this == RETRY)
					? "The " + type + " job is " + status.dbValue() + ". It goes back to pending with a fresh set "
							+ "of attempts and runs as soon as a worker is free."
					: "The " + type + " job is " + status.dbValue() + ". " + ((status == JobStatus.RUNNING)
							? "Its handler is interrupted and the job ends cancelled." : "It will not run.")
							+ " Jobs that wait for it follow their dependency policy.";
		}

	}

}
