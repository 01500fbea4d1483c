package dev.jobqueue.dashboard;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.Job;
import dev.jobqueue.JobStatus;
import dev.jobqueue.views.JobLinks;
import dev.jobqueue.views.JobSummary;

/**
 * A job's place among other jobs on its page: the chain it is a step of (steps in order,
 * each with its status and a link), what it waits for and what waits for it. Lists are
 * capped, so each says how many there are in all when it shows fewer.
 */
final class ChainSection {

	/**
	 * Jobs of one fan-out step listed by link; the rest are counted by status. A step of
	 * 10,000 children is read as a line of counts, not as 10,000 links.
	 */
	static final int JOBS_PER_STEP = 10;

	private ChainSection() {
	}

	/**
	 * The chain as the page shows it.
	 *
	 * @param steps every step with its chain index, when the whole chain was read; else
	 * {@code null} and the page shows {@link JobLinks#chainSteps()} in order, without
	 * step numbers
	 * @param unfinished unfinished steps (waiting, pending, running) among those known
	 */
	record Chain(List<Job> steps, long unfinished) {

		static Chain of(List<Job> steps) {
			return new Chain(steps, steps.stream().filter((step) -> ChainSection.unfinished(step.status())).count());
		}

	}

	static boolean unfinished(JobStatus status) {
		return status == JobStatus.WAITING || status == JobStatus.PENDING || status == JobStatus.RUNNING;
	}

	/**
	 * Whether the chain may have a step that is not finished: known when the whole chain
	 * was read, otherwise assumed when a listed step is unfinished or the list is capped
	 * (the confirmation then says what cancelling does).
	 */
	static boolean mayHaveUnfinishedSteps(JobLinks links, Chain chain) {
		if (links.chainId() == null) {
			return false;
		}
		if (chain != null) {
			return chain.unfinished() > 0;
		}
		return links.chainLength() > links.chainSteps().size()
				|| links.chainSteps().stream().anyMatch((step) -> unfinished(step.status()));
	}

	static void render(Html html, Viewer viewer, long jobId, JobLinks links, Chain chain) {
		if (links.chainId() != null) {
			chain(html, viewer, jobId, links, chain);
		}
		if (links.waitsForCount() > 0 || links.waitedByCount() > 0) {
			html.raw("<h2>Dependencies</h2>");
		}
		if (links.waitsForCount() > 0) {
			html.raw("<p id=\"waits-for-summary\">")
				.text("Waits for " + Formats.count(links.waitsForCount()) + " job(s), "
						+ Formats.count(links.unfinishedDependencies()) + " of them unfinished. "
						+ policy(links.dependencyPolicy()))
				.raw("</p>");
			jobs(html, viewer, "waits-for", "Waits for", links.waitsFor(), links.waitsForCount());
		}
		if (links.waitedByCount() > 0) {
			jobs(html, viewer, "waited-by", "Waited for by", links.waitedBy(), links.waitedByCount());
		}
	}

	private static String policy(DependencyPolicy policy) {
		if (policy == null) {
			return "";
		}
		return switch (policy) {
			case CANCEL -> "If one of them fails or is cancelled, this job is cancelled (policy cancel).";
			case FAIL -> "If one of them fails or is cancelled, this job fails (policy fail).";
			case RUN -> "It runs once all of them finished, however they ended (policy run).";
		};
	}

	private static void chain(Html html, Viewer viewer, long jobId, JobLinks links, Chain chain) {
		html.raw("<h2>Chain</h2><p id=\"chain-summary\">")
			.text("Step " + ((links.chainIndex() != null) ? links.chainIndex() + 1 : "?") + " of the chain started by ")
			.link(viewer.url("/jobs/" + links.chainId()), "#" + links.chainId())
			.text(", " + Formats.count(links.chainLength()) + " job(s) in all"
					+ ((chain != null) ? ", " + Formats.count(chain.unfinished()) + " unfinished." : "."))
			.raw("</p>");
		if (chain != null) {
			steps(html, viewer, jobId, chain.steps());
			return;
		}
		// The chain is too long to read on every refresh: its first steps, in order.
		html.raw("<ol class=\"chain\" id=\"chain\">");
		for (JobSummary step : links.chainSteps()) {
			html.raw("<li>");
			jobLink(html, viewer, jobId, step.id(), step.type(), step.status());
			html.raw("</li>");
		}
		html.raw("</ol>");
		if (links.chainLength() > links.chainSteps().size()) {
			html.raw("<p class=\"muted\" id=\"chain-capped\">")
				.text("The first " + Formats.count(links.chainSteps().size()) + " of "
						+ Formats.count(links.chainLength()) + " jobs of the chain.")
				.raw("</p>");
		}
	}

	/** One line per chain index: one job, or a fan-out's jobs with counts by status. */
	private static void steps(Html html, Viewer viewer, long jobId, List<Job> steps) {
		Map<Integer, List<Job>> byIndex = new LinkedHashMap<>();
		for (Job step : steps) {
			byIndex.computeIfAbsent(Objects.requireNonNullElse(step.chainIndex(), 0), (index) -> new ArrayList<>())
				.add(step);
		}
		html.raw("<ol class=\"chain\" id=\"chain\">");
		byIndex.forEach((index, jobs) -> {
			html.raw("<li").attr("data-step", index).raw(">");
			if (jobs.size() == 1) {
				Job job = jobs.get(0);
				jobLink(html, viewer, jobId, job.id(), job.type(), job.status());
			}
			else {
				Map<JobStatus, Long> counts = new EnumMap<>(JobStatus.class);
				jobs.forEach((job) -> counts.merge(job.status(), 1L, Long::sum));
				html.raw("<span class=\"step-count\">").text(Formats.count(jobs.size()) + " jobs:").raw("</span>");
				for (JobStatus status : Formats.statuses()) {
					Long count = counts.get(status);
					if (count != null) {
						html.raw(" ").status(status, Formats.count(count) + " " + status.dbValue());
					}
				}
				html.raw("<br>");
				for (Job job : jobs.subList(0, Math.min(JOBS_PER_STEP, jobs.size()))) {
					jobLink(html, viewer, jobId, job.id(), job.type(), job.status());
					html.raw(" ");
				}
				if (jobs.size() > JOBS_PER_STEP) {
					html.raw("<span class=\"muted\">")
						.text("and " + Formats.count(jobs.size() - JOBS_PER_STEP) + " more")
						.raw("</span>");
				}
			}
			html.raw("</li>");
		});
		html.raw("</ol>");
	}

	private static void jobs(Html html, Viewer viewer, String id, String title, List<JobSummary> jobs, long count) {
		html.raw("<h3>").text(title).raw("</h3><ul class=\"links\"").attr("id", id).raw(">");
		for (JobSummary job : jobs) {
			html.raw("<li>");
			jobLink(html, viewer, -1, job.id(), job.type(), job.status());
			html.raw("</li>");
		}
		html.raw("</ul>");
		if (count > jobs.size()) {
			html.raw("<p class=\"muted\"")
				.attr("id", id + "-capped")
				.raw(">")
				.text(Formats.count(jobs.size()) + " of " + Formats.count(count) + " listed.")
				.raw("</p>");
		}
	}

	/**
	 * {@code #12 scan succeeded}: the link, its type and its status; the page's own job
	 * marked.
	 */
	private static void jobLink(Html html, Viewer viewer, long current, long id, String type, JobStatus status) {
		html.raw("<span class=\"step\"");
		if (id == current) {
			html.raw(" aria-current=\"true\"");
		}
		html.attr("data-job", id)
			.raw(">")
			.link(viewer.url("/jobs/" + id), "#" + id)
			.raw(" ")
			.text(type)
			.raw(" ")
			.status(status, status.dbValue())
			.raw("</span>");
	}

}
