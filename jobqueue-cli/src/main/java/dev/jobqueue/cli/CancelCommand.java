package dev.jobqueue.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code cancel ID}: a pending job cancelled at once, a running one asked to stop,
 * through the queue's own cancel (its event written, fencing kept).
 */
@Command(name = "cancel", description = "Cancels a waiting or pending job, or asks its worker to stop a running "
		+ "one. Exit code 1 when there is no such job or it has finished.")
final class CancelCommand extends QueueCommand {

	@Parameters(index = "0", paramLabel = "ID", description = "The job's id.")
	long id;

	@Override
	int run(QueueDatabase db, Output out) {
		if (db.queue().find(this.id).isEmpty()) {
			throw CliException.nothing("No job " + this.id + " in " + db.description());
		}
		boolean cancelled = db.queue().cancel(this.id);
		return ActionResult
			.ofJob(this.id, "cancel", cancelled, db.queue().find(this.id),
					"cancelled (a running job stops at its worker's next check)",
					"only waiting, pending or running jobs can be cancelled")
			.report(out);
	}

}
