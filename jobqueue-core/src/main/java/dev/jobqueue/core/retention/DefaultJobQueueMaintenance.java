package dev.jobqueue.core.retention;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.FileMaintenance;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.store.StorageStats;

/**
 * {@link JobQueueMaintenance} over a {@link RetentionCleaner}, its store and the upkeep
 * of the database's files the cleaner does (where the store has files).
 */
public final class DefaultJobQueueMaintenance implements JobQueueMaintenance {

	private final RetentionCleaner cleaner;

	private final RetentionStore store;

	public DefaultJobQueueMaintenance(RetentionCleaner cleaner, RetentionStore store) {
		this.cleaner = Objects.requireNonNull(cleaner, "'cleaner' must not be null");
		this.store = Objects.requireNonNull(store, "'store' must not be null");
	}

	@Override
	public RetentionReport purgeExpired() {
		return this.cleaner.purgeOnce();
	}

	@Override
	public RetentionReport purge(JobStatus status, Duration olderThan) {
		return this.cleaner.purge(status, olderThan);
	}

	@Override
	public Optional<RetentionReport> lastRetentionReport() {
		return this.cleaner.lastReport();
	}

	@Override
	public StorageStats storage() {
		return this.store.storage();
	}

	@Override
	public StorageStats checkpoint() {
		return this.cleaner.fileMaintenance().map((files) -> files.checkpoint(true)).orElseGet(this.store::storage);
	}

	@Override
	public StorageStats vacuum() {
		return this.store.vacuum();
	}

	/** Only where the store looks after files; else there is nothing to switch on. */
	@Override
	public StorageStats enableIncrementalVacuum() {
		return this.cleaner.fileMaintenance()
			.map(FileMaintenance::enableIncrementalVacuum)
			.orElseGet(this.store::storage);
	}

}
