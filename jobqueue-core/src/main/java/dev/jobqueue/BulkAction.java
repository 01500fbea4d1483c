package dev.jobqueue;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a bulk action ({@link JobQueue#bulk(BulkRequest)}) does to each job it matches,
 * and to which statuses it applies: a job matching the filter in another status is not
 * touched.
 */
public enum BulkAction {

	/**
	 * {@link JobQueue#retry(long)} of each failed or cancelled job (durable steps kept).
	 * A job whose dedup key another unfinished job holds is skipped.
	 */
	RETRY(EnumSet.of(JobStatus.FAILED, JobStatus.CANCELLED)),

	/**
	 * {@link JobQueue#cancel(long)} of each waiting, pending or running job (a running
	 * job is asked to stop, once).
	 */
	CANCEL(EnumSet.of(JobStatus.WAITING, JobStatus.PENDING, JobStatus.RUNNING)),

	/**
	 * Deletes each finished job with its attempts and events, as retention does: chain
	 * steps (chains go whole, by retention) and jobs an unfinished job waits for are
	 * skipped.
	 */
	DELETE(EnumSet.of(JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED));

	private final Set<JobStatus> statuses;

	BulkAction(Set<JobStatus> statuses) {
		this.statuses = Set.copyOf(statuses);
	}

	/** The statuses a job must be in for this action to touch it. */
	public Set<JobStatus> statuses() {
		return this.statuses;
	}

	/** The action's name as the endpoint and the command line write it. */
	public String word() {
		return name().toLowerCase(Locale.ROOT);
	}

	/**
	 * Checks that {@code filter} can match a job this action applies to.
	 * @throws JobQueueException naming the statuses the action applies to, when the
	 * filter's status is not one of them
	 */
	public void check(JobFilter filter) {
		if (filter.status() != null && !this.statuses.contains(filter.status())) {
			throw new JobQueueException("A bulk " + word() + " applies to " + statusWords() + " jobs, not to "
					+ filter.status().dbValue() + " ones: use one of those statuses or none");
		}
	}

	/** The statuses, as {@code failed or cancelled}. */
	public String statusWords() {
		String words = this.statuses.stream().sorted().map(JobStatus::dbValue).collect(Collectors.joining(", "));
		int last = words.lastIndexOf(", ");
		return (last < 0) ? words : words.substring(0, last) + " or " + words.substring(last + 2);
	}

	/**
	 * The action named by {@code word} ({@code retry}, {@code cancel}, {@code delete}).
	 */
	public static BulkAction of(String word) {
		for (BulkAction action : values()) {
			if (action.word().equalsIgnoreCase(word)) {
				return action;
			}
		}
		throw new JobQueueException("'" + word + "' is not a bulk action: use retry, cancel or delete");
	}

}
