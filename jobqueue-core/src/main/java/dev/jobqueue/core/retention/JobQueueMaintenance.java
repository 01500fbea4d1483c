package dev.jobqueue.core.retention;

import java.time.Duration;
import java.util.Optional;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.StorageStats;

/**
 * Operations on the queue's data for an operator: purge now, look at file sizes, compact
 * the file. Inject it where an admin endpoint or a command-line runner needs it.
 *
 * <p>
 * {@link #vacuum()} and {@link #enableIncrementalVacuum()} rewrite the whole database
 * file: they need free disk space about the size of the file, hold the write lock for as
 * long as the rewrite takes (workers of every process wait, and writes of other processes
 * may time out after {@code jobqueue.datasource.lock-wait}), and write the whole file
 * through the write-ahead log. Run them off-peak, for example from a
 * {@code CommandLineRunner} of a maintenance profile or a scheduled job at night:
 *
 * <pre class="code">
 * &#64;Scheduled(cron = "0 30 3 * * SUN")
 * void compactQueue() {
 *     maintenance.vacuum();
 * }
 * </pre>
 */
public interface JobQueueMaintenance {

	/** Runs the retention cleanup now, as the schedule would. */
	RetentionReport purgeExpired();

	/**
	 * Deletes the jobs of a final status that finished more than {@code olderThan} ago,
	 * with their attempts and events, whatever the retention settings say; then hands the
	 * space back. Batched like the cleanup.
	 * @param status {@code SUCCEEDED}, {@code FAILED} or {@code CANCELLED}
	 * @param olderThan zero or positive; zero deletes all finished jobs of that status
	 * @throws IllegalArgumentException for an unfinished status or a negative age
	 */
	RetentionReport purge(JobStatus status, Duration olderThan);

	/**
	 * What the latest cleanup run (scheduled or manual) did, if one ran in this process.
	 */
	Optional<RetentionReport> lastRetentionReport();

	/**
	 * Sizes of the database file and its write-ahead log, and free space inside the file.
	 */
	StorageStats storage();

	/**
	 * Copies the write-ahead log into the database and truncates the log file, waiting
	 * briefly for readers.
	 */
	StorageStats checkpoint();

	/**
	 * Rewrites the database compactly (SQLite {@code VACUUM}): the file shrinks to its
	 * live data. Off-peak only, see the class comment. Not needed in normal operation:
	 * the cleanup hands free space back by itself when incremental vacuum is on.
	 */
	StorageStats vacuum();

	/**
	 * Switches incremental vacuum on for a file created without it (for example a shared
	 * application database that had tables before the queue's), with a full
	 * {@link #vacuum()}. Needed once; afterwards every cleanup hands free space back.
	 * Does nothing on a file that has it already. Off-peak only, see the class comment.
	 */
	StorageStats enableIncrementalVacuum();

}
