package dev.jobqueue.cli;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

import dev.jobqueue.BulkAction;
import dev.jobqueue.BulkRequest;
import dev.jobqueue.BulkResult;
import dev.jobqueue.JobFilter;
import dev.jobqueue.JobQueueException;

/**
 * A bulk action as the commands run it: the count first, then nothing (a dry run, no
 * match, over the bound without {@code --yes}) or the action through the queue's own
 * {@link dev.jobqueue.JobQueue#bulk}, batch by batch.
 */
final class BulkRun {

	private BulkRun() {
	}

	/**
	 * What the command printed for a bulk action.
	 *
	 * @param action retry, cancel or delete
	 * @param filter the filter, as its fields
	 * @param dryRun whether only the count was asked for
	 * @param matched the jobs the action applied to when it started
	 * @param applied the jobs changed
	 * @param skipped matched jobs left alone (changed meanwhile, or a dedup key taken)
	 * @param batches transactions taken
	 * @param batchSize most jobs changed per transaction
	 */
	record Bulk(String action, String filter, boolean dryRun, long matched, long applied, long skipped, int batches,
			int batchSize) {

	}

	static int run(QueueDatabase db, Output out, BulkAction action, FilterOptions options, boolean dryRun,
			boolean confirmed, int batchSize) {
		// Ages are read to the millisecond, as the database keeps instants.
		JobFilter filter = options.filter(Instant.now().truncatedTo(ChronoUnit.MILLIS));
		BulkRequest request;
		try {
			action.check(filter);
			request = BulkRequest.of(action, filter).batchSize(batchSize);
		}
		catch (JobQueueException ex) {
			throw CliException.usage(ex.getMessage());
		}
		long matched = db.queue().bulk(request.dryRun()).matched();
		if (matched == 0) {
			throw CliException.nothing("No job matches " + filter + " that a " + action.word() + " applies to ("
					+ action.statusWords() + "); nothing changed");
		}
		if (dryRun) {
			report(out, new BulkResult(action, filter, true, matched, 0, 0, 0), batchSize);
			return ExitCodes.OK;
		}
		if (matched > BulkRequest.CONFIRMATION_BOUND && !confirmed) {
			throw CliException.usage(String.format(
					"%,d jobs match %s, more than %,d: add --yes to %s them all, or narrow the filter; nothing changed",
					matched, filter, BulkRequest.CONFIRMATION_BOUND, action.word()));
		}
		BulkResult result = db.queue().bulk(confirmed ? request.confirmed() : request);
		report(out, result, batchSize);
		return (result.applied() > 0) ? ExitCodes.OK : ExitCodes.NOTHING;
	}

	private static void report(Output out, BulkResult result, int batchSize) {
		if (out.json()) {
			out.json(new Bulk(result.action().word(), result.filter().toString(), result.dryRun(), result.matched(),
					result.applied(), result.skipped(), result.batches(), batchSize));
			return;
		}
		String verb = switch (result.action()) {
			case RETRY -> "retried";
			case CANCEL -> "cancelled";
			case DELETE -> "deleted";
		};
		if (result.dryRun()) {
			out.line("%,d job(s) match %s: they would be %s (in batches of %d); run again without --dry-run to do it",
					result.matched(), result.filter(), verb, batchSize);
			return;
		}
		String skipped = (result.skipped() > 0) ? String.format("; %,d skipped (changed meanwhile%s)", result.skipped(),
				(result.action() == BulkAction.RETRY) ? ", or their dedup key is taken" : "") : "";
		out.line("%,d job(s) %s of %,d matching %s, in %d batch(es)%s", result.applied(), verb, result.matched(),
				result.filter(), result.batches(), skipped);
	}

}
