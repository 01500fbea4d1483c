package dev.jobqueue.cli;

import picocli.CommandLine.Command;

import dev.jobqueue.BulkAction;

/**
 * {@code cancel ID}: a pending job cancelled at once, a running one asked to stop,
 * through the queue's own cancel (its event written, fencing kept); with a filter instead
 * of an id, every such job it matches, in batches (see {@link BulkRun}).
 */
@Command(name = "cancel",
		description = "Cancels a waiting or pending job, or asks its worker to stop a running "
				+ "one; or every such job a filter matches, in batches. Exit code 1 when there is no such job, it has "
				+ "finished, or the filter matches none.")
final class CancelCommand extends BulkCommand {

	@Override
	BulkAction action() {
		return BulkAction.CANCEL;
	}

	@Override
	int runOne(QueueDatabase db, Output out) {
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
