package dev.jobqueue.cli;

import java.time.Instant;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import dev.jobqueue.views.Attempt;
import dev.jobqueue.views.Event;
import dev.jobqueue.views.JobDetail;
import dev.jobqueue.views.JobLinks;
import dev.jobqueue.views.JobSummary;
import dev.jobqueue.views.Step;
import dev.jobqueue.views.Text;
import dev.jobqueue.views.ValuePolicy;

/**
 * {@code show ID}: one job with its attempts, events, chain and steps.
 */
@Command(name = "show", description = "One job: its state, payload and result (shortened), attempts, events, "
		+ "chain, dependencies and durable steps. Exit code 1 when there is no such job.")
final class ShowCommand extends QueueCommand {

	@Parameters(index = "0", paramLabel = "ID", description = "The job's id.")
	long id;

	@Option(names = "--preview", defaultValue = "200",
			description = "Characters of payload and result shown; 0 shows only their length (default: 200).")
	int preview;

	@Override
	int run(QueueDatabase db, Output out) {
		if (this.preview < 0) {
			throw CliException.usage("--preview must be 0 or more");
		}
		JobDetail detail = db.views()
			.job(this.id, this.preview, ValuePolicy.SHOWN)
			.orElseThrow(() -> CliException.nothing("No job " + this.id + " in " + db.description()));
		if (out.json()) {
			out.json(detail);
			return ExitCodes.OK;
		}
		Instant now = Instant.now();
		JobSummary job = detail.job();
		out.line("Job #%d  %s  %s  attempt %d of %d, priority %d", job.id(), job.type(), job.status().dbValue(),
				job.attempts(), job.maxAttempts(), job.priority());
		out.line("  enqueued %s, due %s, started %s, finished %s", Output.ago(job.createdAt(), now),
				Output.ago(job.runAt(), now), Output.ago(job.startedAt(), now), Output.ago(job.finishedAt(), now));
		if (job.workerId() != null) {
			out.line("  worker %s, heartbeat %s%s", job.workerId(), Output.ago(job.heartbeatAt(), now),
					(detail.leaseUntil() != null) ? ", lease until " + detail.leaseUntil() : "");
		}
		if (job.errorCode() != null) {
			out.line("  error %s: %s", job.errorCode(), detail.errorDetail());
		}
		if (job.key() != null) {
			out.line("  key %s", job.key());
		}
		if (detail.dedupKey() != null) {
			out.line("  dedup key %s", detail.dedupKey());
		}
		if (detail.cancelRequested()) {
			out.line("  cancel requested");
		}
		out.line("  payload %s", text(detail.payload()));
		if (detail.result() != null) {
			out.line("  result %s", text(detail.result()));
		}
		out.line("Attempts (%d)", detail.attempts().size());
		for (Attempt attempt : detail.attempts()) {
			out.line("  run %d (attempt %d) on %s, started %s: %s%s", attempt.run(), attempt.attempt(),
					attempt.workerId(), Output.ago(attempt.startedAt(), now),
					(attempt.outcome() != null) ? attempt.outcome() : "running",
					(attempt.errorCode() != null) ? " " + attempt.errorCode() + ": " + attempt.errorDetail() : "");
		}
		out.line("Events (%d)", detail.events().size());
		for (Event event : detail.events()) {
			out.line("  %s  %-16s %-14s %s", event.at(), event.event(), (event.actor() != null) ? event.actor() : "-",
					(event.detail() != null) ? event.detail() : "");
		}
		JobLinks links = detail.links();
		if (links.chainId() != null) {
			out.line("Chain #%d, step %d of %d", links.chainId(), links.chainIndex(), links.chainLength());
			links.chainSteps()
				.forEach((step) -> out.line("  %s#%d %s %s", (step.id() == job.id()) ? "> " : "  ", step.id(),
						step.type(), step.status().dbValue()));
		}
		if (links.waitsForCount() > 0) {
			out.line("Waits for %d job(s) (%d unfinished, on failure: %s)", links.waitsForCount(),
					links.unfinishedDependencies(), links.dependencyPolicy());
			links.waitsFor().forEach((other) -> out.line("  #%d %s %s", other.id(), other.type(), other.status()));
		}
		if (links.waitedByCount() > 0) {
			out.line("Waited for by %d job(s)", links.waitedByCount());
			links.waitedBy().forEach((other) -> out.line("  #%d %s %s", other.id(), other.type(), other.status()));
		}
		if (!detail.steps().isEmpty()) {
			out.line("Steps (%d)", detail.steps().size());
			for (Step step : detail.steps()) {
				out.line("  %-24s run %d, recorded %s%s", step.name(), step.run(), step.recordedAt(),
						(step.result() != null) ? ": " + text(step.result()) : "");
			}
		}
		return ExitCodes.OK;
	}

	private static String text(Text text) {
		if (text == null) {
			return "-";
		}
		if (text.preview() == null) {
			return "(" + text.length() + " characters)";
		}
		return text.preview() + (text.truncated() ? "… (" + text.length() + " characters)" : "");
	}

}
