package dev.jobqueue.views;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.FlowControl;

/**
 * The state of the queue at one instant, answering the questions an operator asks: how
 * many jobs in which state, how late is the oldest claimable job, which runs are the
 * oldest and on which worker, which are stuck, how often jobs are retried, why they fail,
 * which types nobody handles, and how the database itself is.
 *
 * @param at when it was taken
 * @param counts job counts per type and status
 * @param claimable pending jobs that are due now, of types that are not paused and that a
 * live worker handles
 * @param oldestClaimable the oldest of them (by due time), or {@code null}
 * @param oldestRunning the running jobs claimed longest ago
 * @param stuck running jobs without a heartbeat for longer than the stuck-after setting
 * @param retries attempts used → jobs, over unfinished and failed jobs
 * @param retriesByType the same per type
 * @param errors error codes of failed jobs and jobs waiting to retry
 * @param workers the workers registered in the database
 * @param unhandled pending jobs per type that no live worker handles
 * @param storage the database's own state
 * @param flow per type with flow control ({@link SnapshotSettings#flowControls()}), its
 * due jobs held back by its limits
 */
public record QueueSnapshot(Instant at, Map<String, Map<JobStatus, Long>> counts, long claimable,
		@Nullable JobSummary oldestClaimable, List<JobSummary> oldestRunning, StuckJobs stuck,
		Map<Integer, Long> retries, Map<String, Map<Integer, Long>> retriesByType, ErrorSummary errors,
		List<WorkerState> workers, Map<String, Long> unhandled, StorageState storage, Map<String, FlowState> flow) {

	public QueueSnapshot {
		flow = Collections.unmodifiableMap(new TreeMap<>(flow));
	}

	/** Jobs per status over all types; every status is present. */
	public Map<JobStatus, Long> countsByStatus() {
		Map<JobStatus, Long> totals = new EnumMap<>(JobStatus.class);
		for (JobStatus status : JobStatus.values()) {
			totals.put(status, 0L);
		}
		this.counts.values()
			.forEach((byStatus) -> byStatus.forEach((status, count) -> totals.merge(status, count, Long::sum)));
		return totals;
	}

	/** How long the oldest claimable job has been due, or zero. */
	public Duration oldestClaimableAge() {
		return age(this.oldestClaimable != null ? this.oldestClaimable.runAt() : null);
	}

	/** How long ago the oldest running job was claimed, or zero. */
	public Duration oldestRunningAge() {
		return age(this.oldestRunning.isEmpty() ? null : this.oldestRunning.get(0).startedAt());
	}

	/**
	 * Jobs per status as the database writes the status (lower case), and their
	 * {@code total}: what the endpoint and the command line answer.
	 */
	public Map<String, Long> statusCounts() {
		Map<String, Long> counts = new LinkedHashMap<>();
		long total = 0;
		for (Map.Entry<JobStatus, Long> entry : countsByStatus().entrySet()) {
			counts.put(entry.getKey().dbValue(), entry.getValue());
			total += entry.getValue();
		}
		counts.put("total", total);
		return counts;
	}

	/** Jobs per type and status, statuses as the database writes them. */
	public Map<String, Map<String, Long>> typeCounts() {
		Map<String, Map<String, Long>> byType = new LinkedHashMap<>();
		this.counts.forEach((type, byStatus) -> {
			Map<String, Long> values = new LinkedHashMap<>();
			byStatus.forEach((status, count) -> values.put(status.dbValue(), count));
			byType.put(type, values);
		});
		return byType;
	}

	private Duration age(@Nullable Instant since) {
		if (since == null || since.isAfter(this.at)) {
			return Duration.ZERO;
		}
		return Duration.between(since, this.at);
	}

	/**
	 * The due pending jobs of one type with flow control that its limits hold back at the
	 * snapshot's instant. Each due job counts once, under the first limit that holds it,
	 * in the order a claim applies them, as if the claim had room for every due job:
	 * <ol>
	 * <li>{@code blocked}: its key is blocked, an ordered key (with
	 * {@code blockOnFailure}) that has a job failed for good: every due job of the
	 * key.</li>
	 * <li>{@code key-limit}: its key is at its limit: an ordered key with a running job,
	 * or whose first pending job (in enqueue order) is not due yet, holds all its due
	 * jobs, else all but its first; a key with {@code keyConcurrency} N and R running
	 * jobs holds all its due jobs but N - R.</li>
	 * <li>{@code key-rate-limit}: its key's window is full: of the due jobs its key
	 * limits let go, those beyond what is left of the key's window
	 * ({@code keyRateLimit}'s permits less the key's starts in the window ending
	 * now).</li>
	 * <li>{@code rate-limit}: the type's window is full: of the due jobs every key limit
	 * lets go, and the due jobs without a key, those beyond what is left of the type's
	 * window ({@code rateLimit}'s permits less the type's starts in the window ending
	 * now).</li>
	 * </ol>
	 * What is left could start now; a claim still takes only as many as its workers have
	 * room for. A paused type's jobs are counted as if it ran. Jobs waiting for other
	 * jobs are not pending and not counted.
	 *
	 * @param flowControl the type's limits
	 * @param due its due pending jobs, with and without a key
	 * @param blocked due jobs of blocked keys
	 * @param keyLimit due jobs held by their key's concurrency or order
	 * @param keyRateLimit due jobs held by their key's rate window
	 * @param rateLimit due jobs held by the type's rate window
	 * @param blockedKeys keys blocked by a job failed for good (an ordered type with
	 * {@code blockOnFailure}), whether or not they have pending jobs
	 * @param windowStarts starts of the type in its rate window ending now (0 without a
	 * rate limit)
	 */
	public record FlowState(FlowControl flowControl, long due, long blocked, long keyLimit, long keyRateLimit,
			long rateLimit, long blockedKeys, long windowStarts) {

		/** The reasons a job is held, as meters and the endpoint name them. */
		public static final List<String> REASONS = List.of("rate-limit", "key-rate-limit", "key-limit", "blocked");

		/** Held (throttled) jobs by reason, every reason of {@link #REASONS} present. */
		public Map<String, Long> throttled() {
			Map<String, Long> throttled = new LinkedHashMap<>();
			throttled.put("rate-limit", this.rateLimit);
			throttled.put("key-rate-limit", this.keyRateLimit);
			throttled.put("key-limit", this.keyLimit);
			throttled.put("blocked", this.blocked);
			return throttled;
		}

		/** Due jobs held for any reason. */
		public long throttledTotal() {
			return this.blocked + this.keyLimit + this.keyRateLimit + this.rateLimit;
		}

	}

	/**
	 * Error codes, most frequent first.
	 *
	 * @param top the most frequent codes
	 * @param other jobs with any other code
	 * @param distinctCodes how many codes there are in all
	 */
	public record ErrorSummary(List<ErrorCount> top, long other, int distinctCodes) {

	}

	/**
	 * Jobs with one error code.
	 *
	 * @param code the code, {@code CATEGORY:SUBCATEGORY}
	 * @param count failed plus retrying
	 * @param failed jobs that failed for good with it
	 * @param retrying pending or running jobs whose latest attempt failed with it
	 * @param byType count per job type
	 */
	public record ErrorCount(String code, long count, long failed, long retrying, Map<String, Long> byType) {

	}

	/**
	 * A worker process as registered in the database.
	 *
	 * @param workerId its id
	 * @param host its host
	 * @param pid its process id
	 * @param types the job types it handles
	 * @param concurrency its worker slots
	 * @param startedAt when it registered
	 * @param heartbeatAt its latest heartbeat
	 * @param alive whether the heartbeat is recent enough for it to count
	 */
	public record WorkerState(String workerId, String host, long pid, Set<String> types, int concurrency,
			Instant startedAt, Instant heartbeatAt, boolean alive) {

	}

	/**
	 * The state of the database the queue lives in, in a shape every store fills. The
	 * numeric fields keep their SQLite meaning; a store without such a thing reports 0
	 * (PostgreSQL has no write-ahead log or free list of the queue's own) and tells its
	 * own figures in {@code details}.
	 *
	 * @param store which store: {@code sqlite}, {@code postgresql} or {@code mysql}
	 * @param location the file, or the database's URL without credentials
	 * @param databaseBytes size of the database file; on PostgreSQL, of the queue's
	 * tables with their indexes
	 * @param walBytes size of the write-ahead log (SQLite)
	 * @param pageSize bytes per page
	 * @param pageCount pages in the database
	 * @param freePages unused pages (reusable, or given back by an incremental vacuum)
	 * (SQLite)
	 * @param busyRetries writes retried in this process because the database stayed
	 * locked or a transaction conflicted
	 * @param details what only this store has: on PostgreSQL, {@code tables} (per table:
	 * bytes, index bytes, live and dead rows) and {@code connections} (the database's
	 * sessions by state)
	 */
	public record StorageState(String store, String location, long databaseBytes, long walBytes, long pageSize,
			long pageCount, long freePages, long busyRetries, Map<String, Object> details) {

		public StorageState {
			details = (details != null) ? Map.copyOf(details) : Map.of();
		}

	}

}
