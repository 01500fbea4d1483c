package dev.jobqueue.actuate;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.jobqueue.JobStatus;
import dev.jobqueue.PausedType;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.views.QueueSnapshot;

/**
 * The answer of {@code GET /actuator/jobqueue}: the state of the queue.
 *
 * @param at when it was computed
 * @param counts jobs per status, and their total
 * @param byType jobs per type and status
 * @param pending due and scheduled pending jobs and the oldest due one
 * @param oldestRunning running jobs claimed longest ago
 * @param stuck running jobs without heartbeat for longer than stuck-after
 * @param retries attempts used → jobs, over unfinished and failed jobs
 * @param errors the Top-N error codes
 * @param unhandled pending jobs per type that no live worker handles (held: not counted
 * as claimable)
 * @param paused the paused types, whose pending jobs are held (not counted as claimable)
 * @param workers registered workers
 * @param thisWorker the worker of the process that answers, with the jobs it holds
 * claimed ahead apart from those it runs; {@code null} when it runs none
 * @param retention retention settings and the latest cleanup
 * @param storage the state of the database the queue lives in (SQLite: file, WAL, free
 * pages; PostgreSQL: table and index sizes, dead rows, connections)
 * @param held jobs held until a commit that, by their age, will not come: their process
 * died between its caller's commit and their release
 * @param flow per type with flow control that this process handles, its limits and its
 * due jobs they hold back, by reason
 */
public record QueueReport(Instant at, Map<String, Long> counts, Map<String, Map<String, Long>> byType, Pending pending,
		List<JobView> oldestRunning, Stuck stuck, Retries retries, QueueSnapshot.ErrorSummary errors,
		Map<String, Long> unhandled, List<PausedType> paused, List<QueueSnapshot.WorkerState> workers,
		LocalWorker thisWorker, Retention retention, QueueSnapshot.StorageState storage, Held held,
		Map<String, Flow> flow) {

	static QueueReport of(QueueSnapshot snapshot, Instant now, List<PausedType> paused, LocalWorker thisWorker,
			QueueEndpointSettings settings, RetentionReport lastCleanup, Held held) {
		Map<String, Flow> flow = new LinkedHashMap<>();
		snapshot.flow().forEach((type, state) -> flow.put(type, Flow.of(state)));
		Map<String, Long> counts = snapshot.statusCounts();
		Map<String, Map<String, Long>> byType = snapshot.typeCounts();
		long pending = snapshot.countsByStatus().get(JobStatus.PENDING);
		Pending pendingReport = new Pending(snapshot.claimable(), pending - snapshot.claimable(),
				(snapshot.oldestClaimable() != null) ? JobView.of(snapshot.oldestClaimable(), now) : null);
		Stuck stuck = new Stuck(settings.snapshot().stuckAfter().toString(), snapshot.stuck().count(),
				snapshot.stuck().oldest().stream().map((job) -> JobView.of(job, now)).toList());
		return new QueueReport(now, counts, byType, pendingReport,
				snapshot.oldestRunning().stream().map((job) -> JobView.of(job, now)).toList(), stuck,
				new Retries(snapshot.retries(), snapshot.retriesByType()), snapshot.errors(), snapshot.unhandled(),
				paused, snapshot.workers(), thisWorker, Retention.of(settings.retention(), lastCleanup),
				snapshot.storage(), held, flow);
	}

	/** What a caller who may not see values reads instead of the database's location. */
	public static final String HIDDEN = "hidden (management.endpoint.jobqueue.show-values)";

	/**
	 * This report with the database's location (a file's path, a server's address)
	 * hidden, for a caller who may not see values.
	 */
	QueueReport withLocationHidden() {
		QueueSnapshot.StorageState state = this.storage;
		if (state == null || state.location() == null) {
			return this;
		}
		QueueSnapshot.StorageState hidden = new QueueSnapshot.StorageState(state.store(), HIDDEN, state.databaseBytes(),
				state.walBytes(), state.pageSize(), state.pageCount(), state.freePages(), state.busyRetries(),
				state.details());
		return new QueueReport(this.at, this.counts, this.byType, this.pending, this.oldestRunning, this.stuck,
				this.retries, this.errors, this.unhandled, this.paused, this.workers, this.thisWorker, this.retention,
				hidden, this.held, this.flow);
	}

	/**
	 * A type's flow control as it is configured.
	 *
	 * @param rateLimit starts of the type per window ({@code 100/1s}), or {@code null}
	 * @param keyRateLimit starts of one key per window, or {@code null}
	 * @param keyConcurrency running jobs per key, 0 for no limit
	 * @param ordered whether a key's jobs start one after another in enqueue order
	 * @param blockOnFailure whether a failed job of an ordered key holds its later jobs
	 */
	public record Limits(String rateLimit, String keyRateLimit, int keyConcurrency, boolean ordered,
			boolean blockOnFailure) {

		static Limits of(FlowControl flow) {
			return new Limits((flow.rateLimit() != null) ? flow.rateLimit().toString() : null,
					(flow.keyRateLimit() != null) ? flow.keyRateLimit().toString() : null, flow.keyConcurrency(),
					flow.ordered(), flow.blockOnFailure());
		}

	}

	/**
	 * The due jobs of one type with flow control that its limits hold back now; see
	 * {@link QueueSnapshot.FlowState} for how each job is counted once.
	 *
	 * @param limits the type's limits
	 * @param due its due pending jobs
	 * @param throttled due jobs held, by reason: {@code rate-limit} (the type's window is
	 * full), {@code key-rate-limit} (their key's window is full), {@code key-limit}
	 * (their key is at its concurrency, or an ordered key has a job running or not yet
	 * due before them), {@code blocked} (their ordered key has a failed job)
	 * @param blockedKeys keys held by a failed job
	 * @param windowStarts starts of the type in its rate window ending now
	 */
	public record Flow(Limits limits, long due, Map<String, Long> throttled, long blockedKeys, long windowStarts) {

		static Flow of(QueueSnapshot.FlowState state) {
			return new Flow(Limits.of(state.flowControl()), state.due(), state.throttled(), state.blockedKeys(),
					state.windowStarts());
		}

	}

	/**
	 * The worker of this process. Jobs it holds claimed ahead are {@code running} in the
	 * database (claimed, with a lease), so the counts above include them; only the worker
	 * itself tells them apart, and only for its own process.
	 *
	 * @param workerId its id
	 * @param slots jobs it runs at once ({@code jobqueue.worker.concurrency})
	 * @param claimAhead jobs beyond its free slots it may hold claimed
	 * ({@code jobqueue.worker.claim-ahead})
	 * @param running jobs running, or ended with their outcome not written yet
	 * @param waitingForSlot jobs claimed ahead, waiting for a slot
	 */
	public record LocalWorker(String workerId, int slots, int claimAhead, int running, int waitingForSlot) {

	}

	/**
	 * Pending jobs.
	 *
	 * @param claimable due now, of a type that is not paused and that a live worker
	 * handles
	 * @param scheduled the other pending jobs: due later (scheduled, or waiting out a
	 * retry backoff), or held because their type is paused or no live worker handles it
	 * @param oldestClaimable the due job that has waited longest, or {@code null}
	 */
	public record Pending(long claimable, long scheduled, JobView oldestClaimable) {

	}

	/**
	 * Stuck jobs.
	 *
	 * @param after the stuck-after setting
	 * @param count how many
	 * @param jobs the ones with the oldest heartbeat
	 */
	public record Stuck(String after, long count, List<JobView> jobs) {

	}

	/**
	 * Jobs enqueued in a transaction on another database
	 * ({@code jobqueue.enqueue.visibility=after-commit}) and still held, long after any
	 * transaction would have ended: their process died between the commit and the
	 * release. Not lost, not run; see the README's "Transactions" section to release
	 * them.
	 *
	 * @param enqueuedBefore held jobs enqueued before this instant are listed
	 * @param count how many
	 * @param jobs the first enqueued
	 */
	public record Held(Instant enqueuedBefore, long count, List<JobView> jobs) {

	}

	/**
	 * Attempts used → jobs, over unfinished and failed jobs.
	 *
	 * @param overall over all types
	 * @param byType per type
	 */
	public record Retries(Map<Integer, Long> overall, Map<String, Map<Integer, Long>> byType) {

	}

	/**
	 * Retention settings and the latest cleanup.
	 *
	 * @param enabled whether finished jobs are deleted
	 * @param succeeded how long succeeded jobs are kept
	 * @param failed how long failed jobs are kept
	 * @param cancelled how long cancelled jobs are kept
	 * @param perType retention per job type
	 * @param batchSize rows deleted per transaction
	 * @param interval how often the cleanup runs
	 * @param lastCleanup what the latest cleanup did, or {@code null}
	 */
	public record Retention(boolean enabled, String succeeded, String failed, String cancelled,
			Map<String, String> perType, int batchSize, String interval, LastCleanup lastCleanup) {

		static Retention of(QueueEndpointSettings.Retention settings, RetentionReport lastCleanup) {
			Map<String, String> perType = new LinkedHashMap<>();
			settings.perType().forEach((type, duration) -> perType.put(type, duration.toString()));
			return new Retention(settings.enabled(), settings.succeeded().toString(), settings.failed().toString(),
					settings.cancelled().toString(), perType, settings.batchSize(), settings.interval().toString(),
					(lastCleanup != null) ? LastCleanup.of(lastCleanup) : null);
		}

	}

	/**
	 * What the latest cleanup did.
	 *
	 * @param startedAt when it started
	 * @param durationMillis how long it took
	 * @param outcome COMPLETED, SKIPPED (another process cleans), STOPPED, LEASE_LOST or
	 * FAILED
	 * @param deleted jobs deleted per final status, with their attempts and events
	 * @param batches delete transactions
	 * @param bytesReclaimed bytes handed back to the file system by incremental vacuum
	 * @param walBytes WAL size after the run's checkpoint
	 * @param detail why it was skipped or failed, or {@code null}
	 */
	public record LastCleanup(Instant startedAt, long durationMillis, String outcome, Map<String, Long> deleted,
			int batches, long bytesReclaimed, long walBytes, String detail) {

		static LastCleanup of(RetentionReport report) {
			Map<String, Long> deleted = new LinkedHashMap<>();
			report.deleted().forEach((status, count) -> deleted.put(status.dbValue(), count));
			return new LastCleanup(report.startedAt(), report.duration().toMillis(), report.outcome().name(), deleted,
					report.batches(), report.bytesReclaimed(), report.walBytes(), report.detail());
		}

	}

}
