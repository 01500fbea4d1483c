package dev.jobqueue.core;

import java.time.Clock;
import java.util.List;
import java.util.Objects;

import dev.jobqueue.BulkAction;
import dev.jobqueue.BulkRequest;
import dev.jobqueue.BulkResult;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.store.JobAdminStore;
import dev.jobqueue.core.store.QueueSignals;

/**
 * Runs a {@link BulkRequest} against the store, batch by batch.
 *
 * <ol>
 * <li>Counts what the action applies to now (a read); a dry run stops here, and so does
 * an action over {@link BulkRequest#CONFIRMATION_BOUND} that is not confirmed.</li>
 * <li>Notes the largest job id: jobs enqueued from now on are never touched.</li>
 * <li>Reads the next {@code batchSize} matching ids after the last one seen, in id order
 * (a read, no lock), and hands them to {@link JobAdminStore#applyBulk}, whose transaction
 * checks each job against the filter again and changes those that still match. The next
 * read starts after the batch's last id, so a job is visited once.</li>
 * </ol>
 */
final class BulkActions {

	private final JobAdminStore admin;

	private final Clock clock;

	private final long confirmationBound;

	BulkActions(JobAdminStore admin, Clock clock) {
		this(admin, clock, BulkRequest.CONFIRMATION_BOUND);
	}

	/** With another bound than {@link BulkRequest#CONFIRMATION_BOUND}, for tests. */
	BulkActions(JobAdminStore admin, Clock clock, long confirmationBound) {
		this.admin = Objects.requireNonNull(admin, "'admin' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		this.confirmationBound = confirmationBound;
	}

	BulkResult run(BulkRequest request, QueueSignals signals) {
		BulkAction action = request.action();
		action.check(request.filter());
		long matched = this.admin.countForBulk(action, request.filter());
		if (request.isDryRun()) {
			return new BulkResult(action, request.filter(), true, matched, 0, 0, 0);
		}
		if (matched > this.confirmationBound && !request.isConfirmed()) {
			throw new JobQueueException(String.format(
					"A bulk %s of %,d jobs (%s) is more than %,d: narrow the filter, or confirm it (BulkRequest."
							+ "confirmed(), confirm=true at the endpoint, --yes on the command line)",
					action.word(), matched, request.filter(), this.confirmationBound));
		}
		if (matched == 0) {
			return new BulkResult(action, request.filter(), false, 0, 0, 0, 0);
		}
		long through = this.admin.lastJobId();
		long after = 0;
		long seen = 0;
		long applied = 0;
		int batches = 0;
		while (true) {
			List<Long> ids = this.admin.selectForBulk(action, request.filter(), after, through, request.batchSize());
			if (ids.isEmpty()) {
				break;
			}
			List<Long> changed = this.admin.applyBulk(action, request.filter(), ids, this.clock.instant());
			batches++;
			seen += ids.size();
			applied += changed.size();
			tell(signals, action, changed);
			after = ids.get(ids.size() - 1);
		}
		// Jobs that stopped matching before their batch was read were never seen: they
		// count as skipped too.
		long skipped = Math.max(matched, seen) - applied;
		return new BulkResult(action, request.filter(), false, Math.max(matched, seen), applied, skipped, batches);
	}

	/** Lets this process's worker react at once, as the single-job methods do. */
	private static void tell(QueueSignals signals, BulkAction action, List<Long> changed) {
		if (changed.isEmpty()) {
			return;
		}
		switch (action) {
			case RETRY -> signals.jobsEnqueued();
			case CANCEL -> changed.forEach(signals::cancelRequested);
			case DELETE -> {
			}
		}
	}

}
