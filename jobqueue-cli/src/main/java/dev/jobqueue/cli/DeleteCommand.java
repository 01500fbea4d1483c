package dev.jobqueue.cli;

import java.time.Instant;
import java.util.List;

import picocli.CommandLine.Command;

import dev.jobqueue.BulkAction;
import dev.jobqueue.Job;
import dev.jobqueue.JobFilter;

/**
 * {@code delete ID} or {@code delete --status=failed ...}: finished jobs deleted with
 * their attempts and events, as retention deletes them (chain steps and jobs an
 * unfinished job waits for are kept), in batches. {@code purge} deletes by age.
 */
@Command(name = "delete", description = "Deletes a finished job with its attempts and events, or every finished "
		+ "job a filter matches, in batches; chain steps and jobs an unfinished job waits for are kept (retention "
		+ "deletes chains whole). Exit code 1 when there is no such job, it is not finished, or the filter matches "
		+ "none.")
final class DeleteCommand extends BulkCommand {

	@Override
	BulkAction action() {
		return BulkAction.DELETE;
	}

	@Override
	int runOne(QueueDatabase db, Output out) {
		Job job = db.queue()
			.find(this.id)
			.orElseThrow(() -> CliException.nothing("No job " + this.id + " in " + db.description()));
		boolean deleted = !db.storage()
			.admin()
			.applyBulk(BulkAction.DELETE, JobFilter.any(), List.of(this.id), Instant.now())
			.isEmpty();
		String status = job.status().dbValue();
		String message = deleted ? "Job " + this.id + " (" + status + ") deleted with its attempts and events"
				: "Job " + this.id + " is " + status + ": only finished jobs outside a chain, that no unfinished job "
						+ "waits for, can be deleted; nothing changed";
		return new ActionResult(Long.toString(this.id), "delete", deleted, deleted ? "deleted" : status, message)
			.report(out);
	}

}
