package dev.jobqueue.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import dev.jobqueue.BulkAction;
import dev.jobqueue.BulkRequest;

/**
 * A command that acts on one job by id, or on every job a filter matches
 * ({@link BulkRun}): one or the other.
 */
abstract class BulkCommand extends QueueCommand {

	@Parameters(index = "0", arity = "0..1", paramLabel = "ID", description = "The job's id (or give a filter).")
	Long id;

	@Mixin
	FilterOptions filter;

	@Option(names = "--dry-run", description = "Only count the jobs the filter matches; change nothing.")
	boolean dryRun;

	@Option(names = { "--yes", "-y" },
			description = "Go ahead when more than 1,000,000 jobs match (refused without it).")
	boolean yes;

	@Option(names = "--batch-size", defaultValue = "" + BulkRequest.DEFAULT_BATCH_SIZE,
			description = "Jobs changed per transaction (default: ${DEFAULT-VALUE}), so the write lock is never "
					+ "held long.")
	int batchSize;

	@Override
	final int run(QueueDatabase db, Output out) {
		if (this.id != null && this.filter.given()) {
			throw CliException.usage("Give a job ID or a filter (--status, --type, --error-code, --enqueued-*, "
					+ "--finished-*), not both");
		}
		if (this.id != null) {
			if (this.dryRun) {
				throw CliException.usage("--dry-run counts the jobs of a filter: give a filter instead of an ID");
			}
			return runOne(db, out);
		}
		checkBulk();
		if (!this.filter.given()) {
			throw CliException.usage("Give a job ID, or a filter of the jobs to " + action().word()
					+ " (--status, --type, --error-code, --enqueued-after/-before, --finished-after/-before)");
		}
		return BulkRun.run(db, out, action(), this.filter, this.dryRun, this.yes, this.batchSize);
	}

	abstract BulkAction action();

	/**
	 * Refuses options that apply to one job only.
	 * @throws CliException with {@link ExitCodes#USAGE}
	 */
	void checkBulk() {
	}

	/** The action on job {@link #id}. */
	abstract int runOne(QueueDatabase db, Output out);

}
