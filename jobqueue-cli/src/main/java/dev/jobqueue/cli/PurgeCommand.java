package dev.jobqueue.cli;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.retention.RetentionSettings;

/**
 * {@code purge}: deletes finished jobs of one status older than an age, with their
 * attempts and events, through the queue's own {@link RetentionCleaner#purge} (batched,
 * then the space reclaimed as a scheduled cleanup does).
 */
@Command(name = "purge", description = "Deletes finished jobs of one status that finished longer ago than an age, "
		+ "in batches, with their attempts and events. Exit code 1 when none did.")
final class PurgeCommand extends QueueCommand {

	@Option(names = "--status", required = true, description = "succeeded, failed or cancelled.")
	String status;

	@Option(names = "--older-than", required = true, converter = Durations.class,
			description = "Finished longer ago than this: 7d, 12h, 30m, 0s for all.")
	Duration olderThan;

	@Option(names = "--batch-size", defaultValue = "500", description = "Jobs deleted per transaction (default: "
			+ "${DEFAULT-VALUE}), so the write lock is never held long.")
	int batchSize;

	/**
	 * What the purge did.
	 *
	 * @param status the status purged
	 * @param olderThan the age
	 * @param deleted jobs deleted per status
	 * @param batches delete transactions
	 * @param outcome how the run ended
	 * @param bytesReclaimed bytes handed back to the file system
	 */
	record Purged(String status, String olderThan, Map<String, Long> deleted, int batches, String outcome,
			long bytesReclaimed) {

	}

	@Override
	int run(QueueDatabase db, Output out) {
		JobStatus target = JobsCommand.parseStatus(this.status);
		if (target == null || !target.isFinal()) {
			throw CliException.usage("--status=" + this.status + ": only finished jobs can be purged: use succeeded, "
					+ "failed or cancelled (cancel pending or running jobs first)");
		}
		if (this.olderThan.isNegative()) {
			throw CliException.usage("--older-than must be zero or positive");
		}
		if (this.batchSize < 1) {
			throw CliException.usage("--batch-size must be at least 1");
		}
		RetentionCleaner cleaner = new RetentionCleaner(db.storage().retention(),
				db.storage().fileMaintenance().orElse(null), null,
				RetentionSettings.of(RetentionPolicy.keepForever(), this.batchSize), Clock.systemUTC(),
				WorkerIds.newId(), () -> true);
		RetentionReport report = cleaner.purge(target, this.olderThan);
		if (report.outcome() == RetentionReport.Outcome.FAILED) {
			throw CliException.database("Purge failed: " + report.detail());
		}
		Map<String, Long> deleted = new LinkedHashMap<>();
		report.deleted().forEach((status, count) -> deleted.put(status.dbValue(), count));
		long total = report.deleted().values().stream().mapToLong(Long::longValue).sum();
		Purged purged = new Purged(target.dbValue(), this.olderThan.toString(), deleted, report.batches(),
				report.outcome().name(), report.bytesReclaimed());
		if (out.json()) {
			out.json(purged);
		}
		else if (total == 0) {
			out.line("No %s job finished more than %s ago; nothing deleted", target.dbValue(),
					Output.duration(this.olderThan));
		}
		else {
			out.line("Deleted %d %s job(s) finished more than %s ago, in %d batch(es)%s", total, target.dbValue(),
					Output.duration(this.olderThan), report.batches(),
					(report.bytesReclaimed() > 0) ? "; " + Output.bytes(report.bytesReclaimed()) + " reclaimed" : "");
		}
		return (total > 0) ? ExitCodes.OK : ExitCodes.NOTHING;
	}

}
