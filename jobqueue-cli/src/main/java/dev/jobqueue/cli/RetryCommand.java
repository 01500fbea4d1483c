package dev.jobqueue.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import dev.jobqueue.RetryOptions;

/**
 * {@code retry ID}: a failed or cancelled job back to pending with fresh attempts,
 * through the queue's own retry (its event written).
 */
@Command(name = "retry", description = "Puts a failed or cancelled job back to pending with fresh attempts (its "
		+ "durable steps kept unless --forget-steps). Exit code 1 when there is no such job or it is neither.")
final class RetryCommand extends QueueCommand {

	@Parameters(index = "0", paramLabel = "ID", description = "The job's id.")
	long id;

	@Option(names = "--forget-steps", description = "Run every durable step again.")
	boolean forgetSteps;

	@Override
	int run(QueueDatabase db, Output out) {
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
