/**
 * Retention and housekeeping: {@link dev.jobqueue.core.retention.RetentionCleaner}
 * deletes finished jobs in short batches, under a lease so one process cleans at a time.
 */
package dev.jobqueue.core.retention;
