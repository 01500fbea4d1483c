package dev.jobqueue.cli;

import java.time.Instant;
import java.util.Locale;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.views.JobPage;
import dev.jobqueue.views.JobQuery;
import dev.jobqueue.views.JobSummary;

/**
 * {@code jobs}: jobs matching a filter, newest first, a page at a time as the endpoint
 * lists them ({@code --before} is the previous page's {@code nextBefore}).
 */
@Command(name = "jobs", description = "Jobs newest first, filtered by type, status, error code and key; page on with "
		+ "--before=<nextBefore>. Exit code 1 when none matches.")
final class JobsCommand extends QueueCommand {

	/** Largest page, as the endpoint's. */
	static final int MAX_LIMIT = 100;

	@Option(names = "--status", defaultValue = "all",
			description = "waiting, pending, running, succeeded, failed, cancelled or all (default).")
	String status;

	@Option(names = "--type", description = "Only jobs of this type.")
	String type;

	@Option(names = "--error-code", description = "Only jobs whose latest failure has this code.")
	String errorCode;

	@Option(names = "--key", description = "Only jobs with this key (JobRequest.key).")
	String key;

	@Option(names = "--limit", defaultValue = "20", description = "Jobs per page, 1 to 100 (default: 20).")
	int limit;

	@Option(names = "--before", description = "Only jobs with a smaller id: the nextBefore of the previous page.")
	Long before;

	/**
	 * A page of jobs.
	 *
	 * @param jobs the jobs, newest first
	 * @param nextBefore pass as {@code --before} for the next page; {@code null} on the
	 * last
	 */
	record Page(java.util.List<JobSummary> jobs, Long nextBefore) {

	}

	@Override
	int run(QueueDatabase db, Output out) {
		if (this.limit < 1 || this.limit > MAX_LIMIT) {
			throw CliException.usage("--limit=" + this.limit + " is out of range: use 1 to " + MAX_LIMIT
					+ " and page on with --before=<nextBefore>");
		}
		if (this.type != null && EnqueueLimits.typeProblem(this.type) != null) {
			throw CliException.usage("--type: " + EnqueueLimits.typeProblem(this.type));
		}
		checkKey(this.key);
		JobPage page = db.views()
			.jobs(new JobQuery(parseStatus(this.status), this.type, this.errorCode, this.key, this.before, this.limit));
		if (out.json()) {
			out.json(new Page(page.jobs(), page.nextBefore()));
		}
		else if (!page.jobs().isEmpty()) {
			Instant now = Instant.now();
			out.line("%10s  %-24s %-10s %8s  %-28s %-20s %s", "ID", "TYPE", "STATUS", "ATTEMPTS", "ERROR CODE", "KEY",
					"ENQUEUED");
			for (JobSummary job : page.jobs()) {
				out.line("%10d  %-24s %-10s %8s  %-28s %-20s %s", job.id(), job.type(), job.status().dbValue(),
						job.attempts() + "/" + job.maxAttempts(), (job.errorCode() != null) ? job.errorCode() : "-",
						(job.key() != null) ? job.key() : "-", Output.ago(job.createdAt(), now));
			}
			if (page.nextBefore() != null) {
				out.line("more: --before=%d", page.nextBefore());
			}
		}
		if (page.jobs().isEmpty()) {
			if (!out.json()) {
				out.line("No job matches.");
			}
			return ExitCodes.NOTHING;
		}
		return ExitCodes.OK;
	}

	/** Refuses a {@code --key} no job can have, as enqueue would. */
	static void checkKey(String key) {
		if (key != null && (key.isBlank() || key.length() > EnqueueLimits.MAX_KEY_LENGTH
				|| key.chars().anyMatch(Character::isISOControl))) {
			throw CliException.usage("--key: a key has 1 to " + EnqueueLimits.MAX_KEY_LENGTH
					+ " characters, not blank and without control characters (this one has " + key.length() + ")");
		}
	}

	static JobStatus parseStatus(String value) {
		if (value.equalsIgnoreCase("all")) {
			return null;
		}
		for (JobStatus status : JobStatus.values()) {
			if (status.dbValue().equalsIgnoreCase(value)) {
				return status;
			}
		}
		throw CliException.usage("--status=" + value + " is not a status: use waiting, pending, running, succeeded, "
				+ "failed, cancelled or all (got '" + value.toLowerCase(Locale.ROOT) + "')");
	}

}
