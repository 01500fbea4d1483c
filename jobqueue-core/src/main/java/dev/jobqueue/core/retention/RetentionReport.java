package dev.jobqueue.core.retention;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

import dev.jobqueue.JobStatus;

/**
 * What one cleanup run did: shown by the actuator endpoint and logged when it removed
 * anything.
 *
 * @param startedAt when the run started (queue clock)
 * @param duration how long it took
 * @param outcome how it ended
 * @param deleted jobs deleted per final status (their attempts and events went with them)
 * @param batches delete transactions run
 * @param bytesReclaimed space handed back to the file system by incremental vacuum
 * @param walBytes size of the write-ahead log after the run's checkpoint, {@code -1} if
 * not known
 * @param detail why a run was skipped or failed, else {@code null}
 */
public record RetentionReport(Instant startedAt, Duration duration, Outcome outcome, Map<JobStatus, Long> deleted,
		int batches, long bytesReclaimed, long walBytes, String detail) {

	/** How a cleanup run ended. */
	public enum Outcome {

		/** Every expired job was deleted. */
		COMPLETED,
		/** Another process holds the cleanup lease; it cleans for everyone. */
		SKIPPED,
		/** Stopped between two batches (shutdown); the next run continues. */
		STOPPED,
		/**
		 * The lease expired while this run was deleting (a long pause); the next run
		 * continues.
		 */
		LEASE_LOST,
		/**
		 * A database error ended the run; what was committed stays deleted and the next
		 * run continues.
		 */
		FAILED

	}

	public RetentionReport {
		Map<JobStatus, Long> copy = new EnumMap<>(JobStatus.class);
		if (deleted != null) {
			copy.putAll(deleted);
		}
		deleted = Collections.unmodifiableMap(copy);
	}

	/** Jobs deleted in all statuses. */
	public long totalDeleted() {
		return this.deleted.values().stream().mapToLong(Long::longValue).sum();
	}

	/** Jobs deleted in {@code status}. */
	public long deleted(JobStatus status) {
		return this.deleted.getOrDefault(status, 0L);
	}

	@Override
	public String toString() {
		return this.outcome + " in " + this.duration.toMillis() + " ms: deleted " + this.deleted + " in " + this.batches
				+ " batch(es), reclaimed " + this.bytesReclaimed + " bytes, WAL " + this.walBytes + " bytes"
				+ ((this.detail != null) ? " (" + this.detail + ")" : "");
	}

}
