package dev.jobqueue.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.jobqueue.BulkAction;
import dev.jobqueue.RetryOptions;

/**
 * {@code retry ID}: a failed or cancelled job back to pending with fresh attempts,
 * through the queue's own retry (its event written); {@code retry --status=failed ...}:
 * every such job a filter matches, in batches (see {@link BulkRun}).
 */
@Command(name = "retry", description = "Puts a failed or cancelled job back to pending with fresh attempts (its "
		+ "durable steps kept unless --forget-steps), or every such job a filter matches, in batches. Exit code 1 "
		+ "when there is no such job, it is neither, or the filter matches none.")
final class RetryCommand extends BulkCommand {

	@Option(names = "--forget-steps", description = "Run every durable step again (one job only).")
	boolean forgetSteps;

	@Override
	BulkAction action() {
		return BulkAction.RETRY;
	}

	@Override
	void checkBulk() {
		if (this.forgetSteps) {
			throw CliException.usage("--forget-steps applies to one job: give its ID");
		}
	}

	@Override
	int runOne(QueueDatabase db, Output out) {
		if (db.queue().find(this.id).isEmpty()) {
			throw CliException.nothing("No job " + this.id + " in " + db.description());
		}
		boolean retried = db.queue()
			.retry(this.id, this.forgetSteps ? RetryOptions.forgetSteps() : RetryOptions.keepSteps());
		return ActionResult
			.ofJob(this.id, "retry", retried, db.queue().find(this.id), "retried",
					"only failed or cancelled jobs can be retried")
			.report(out);
	}

}
