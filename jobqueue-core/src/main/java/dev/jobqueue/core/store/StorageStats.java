package dev.jobqueue.core.store;

import dev.jobqueue.core.retention.JobQueueMaintenance;

/**
 * Sizes of the queue's database files.
 *
 * @param fileBytes size of the database file
 * @param walBytes size of the write-ahead log next to it ({@code -wal}); 0 when there is
 * none
 * @param freeBytes space inside the file that is free for reuse (SQLite's free list)
 * @param incrementalVacuum whether free space can be handed back to the file system a
 * little at a time (SQLite {@code auto_vacuum=INCREMENTAL}); when {@code false}, free
 * space is reused but the file only shrinks with a full {@code VACUUM}, see
 * {@link JobQueueMaintenance#enableIncrementalVacuum()}
 */
public record StorageStats(long fileBytes, long walBytes, long freeBytes, boolean incrementalVacuum) {

}
