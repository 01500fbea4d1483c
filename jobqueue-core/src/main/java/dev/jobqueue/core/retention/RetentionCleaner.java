package dev.jobqueue.core.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.FileMaintenance;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.store.StorageStats;

/**
 * Deletes finished jobs once their retention has passed and, where the store looks after
 * database files of its own ({@link FileMaintenance}, SQLite), hands the freed space back
 * to the file system and keeps the write-ahead log short. {@link #purgeOnce()} is
 * synchronous and returns what it did; the thread that calls it every
 * {@code jobqueue.retention.interval} lives in the auto-configuration.
 *
 * <ol>
 * <li>The run takes the cleanup lease (a row in the database), so of the processes
 * sharing one file only one cleans at a time; the others report
 * {@link RetentionReport.Outcome#SKIPPED}. The lease is renewed while the run goes on,
 * released at its end, and expires by itself if the process dies.</li>
 * <li>For each final status, and each job type with finished jobs in it, jobs that
 * finished before {@code now - retention} are deleted in batches of {@code batchSize},
 * each batch its own transaction. Attempts and events go with their job (foreign keys
 * with cascade). After each batch the cleaner waits {@code batchPause} times as long as
 * the batch took (three times by default), so workers of this and other processes get the
 * write lock, and the CPU, most of the time.</li>
 * <li>Between batches it checks whether it should stop (the caller's stop condition or an
 * interrupt) and returns at once with {@link RetentionReport.Outcome#STOPPED}. Every
 * batch is committed, so a run that stops or crashes leaves a consistent database, and
 * the next run deletes what is left.</li>
 * <li>Chains go whole ({@link RetentionStore#deleteFinishedChains}): the per-type deletes
 * skip chain steps, and a chain is deleted once every step is older than the longest
 * retention of its status over the types that have finished jobs.</li>
 * <li>The per-minute counts of runs ended go once older than the longest retention of
 * finished jobs, and never within a day (the dashboard's longest chart); kept forever
 * when some finished jobs are.</li>
 * <li>With file maintenance: if the file has free pages and incremental vacuum is on,
 * they are handed back in bounded steps, each its own short transaction, up to
 * {@code maxReclaimSteps} per run.</li>
 * <li>Last, with file maintenance, a checkpoint copies the write-ahead log into the
 * database: passive (never waits) while jobs run in this process, truncating the log file
 * when the process is idle.</li>
 * <li>With {@link TableVacuums} (PostgreSQL) that say so, the run vacuums the queue's
 * tables under the cleanup lease, even when it has nothing to delete.</li>
 * </ol>
 * Longer than our usual 500 lines because the run's steps, its stop checks and its report
 * belong together; split, each part would need the others' state.
 */
public final class RetentionCleaner {

	/** The name of the cleanup lease. */
	public static final String LEASE_TASK = "retention";

	private static final List<JobStatus> FINAL_STATUSES = List.of(JobStatus.SUCCEEDED, JobStatus.FAILED,
			JobStatus.CANCELLED);

	/** The longest period the dashboard charts: its per-minute counts are always kept. */
	static final Duration OUTCOME_COUNTS_KEPT_AT_LEAST = Duration.ofDays(1);

	private static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(2);

	private static final Logger logger = LoggerFactory.getLogger(RetentionCleaner.class);

	private final RetentionStore store;

	private final FileMaintenance files;

	private final TableVacuums vacuums;

	private final RetentionSettings settings;

	private final Clock clock;

	private final String owner;

	private final BooleanSupplier idle;

	private volatile RetentionReport lastReport;

	private volatile boolean reportedNoIncrementalVacuum;

	/**
	 * @param owner who holds the lease while this cleaner runs, unique among processes
	 * (e.g. a worker id)
	 * @param idle whether no job runs in this process now, so a truncating checkpoint
	 * costs nobody anything
	 */
	public RetentionCleaner(RetentionStore store, RetentionSettings settings, Clock clock, String owner,
			BooleanSupplier idle) {
		this(store, null, settings, clock, owner, idle);
	}

	/**
	 * @param files upkeep of the database's files after each run, or {@code null} where
	 * the database looks after its files itself
	 * @param owner who holds the lease while this cleaner runs, unique among processes
	 * (e.g. a worker id)
	 * @param idle whether no job runs in this process now, so a truncating checkpoint
	 * costs nobody anything
	 */
	public RetentionCleaner(RetentionStore store, FileMaintenance files, RetentionSettings settings, Clock clock,
			String owner, BooleanSupplier idle) {
		this(store, files, null, settings, clock, owner, idle);
	}

	/**
	 * @param vacuums whether and when the queue's tables are vacuumed after each run, or
	 * {@code null} where the database needs no vacuum of the queue's own
	 */
	public RetentionCleaner(RetentionStore store, FileMaintenance files, TableVacuums vacuums,
			RetentionSettings settings, Clock clock, String owner, BooleanSupplier idle) {
		this.vacuums = vacuums;
		this.store = Objects.requireNonNull(store, "'store' must not be null");
		this.files = files;
		this.settings = Objects.requireNonNull(settings, "'settings' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		this.owner = Objects.requireNonNull(owner, "'owner' must not be null");
		this.idle = (idle != null) ? idle : () -> true;
	}

	public RetentionSettings settings() {
		return this.settings;
	}

	/** The upkeep of the database's files this cleaner does, if the store has files. */
	public Optional<FileMaintenance> fileMaintenance() {
		return Optional.ofNullable(this.files);
	}

	/** The vacuums of the queue's tables this cleaner runs, if the store needs them. */
	public Optional<TableVacuums> tableVacuums() {
		return Optional.ofNullable(this.vacuums);
	}

	/** The report of the latest run, scheduled or manual, if there was one. */
	public Optional<RetentionReport> lastReport() {
		return Optional.ofNullable(this.lastReport);
	}

	/** One cleanup run; stops early only when the thread is interrupted. */
	public RetentionReport purgeOnce() {
		return purgeOnce(() -> false);
	}

	/**
	 * One cleanup run: see the class comment.
	 * @param stop checked between batches: when it answers {@code true} the run ends at
	 * once
	 */
	public RetentionReport purgeOnce(BooleanSupplier stop) {
		Instant now = this.clock.instant();
		RetentionPolicy policy = this.settings.policy();
		Run run = new Run(now, stop);
		try {
			pruneSilentWorkers(now);
			boolean vacuum = this.vacuums != null && this.vacuums.dueOrLog();
			if (policy.deletesAnything() || vacuum) {
				if (!this.store.acquireLease(LEASE_TASK, this.owner, now, now.plus(this.settings.lease()))) {
					run.end(RetentionReport.Outcome.SKIPPED,
							"another process holds the cleanup lease and cleans " + "for everyone");
				}
				else {
					try {
						if (policy.deletesAnything()) {
							deleteExpired(run, (status, type) -> policy.retention(status, type).map(now::minus), true);
							deleteExpiredOutcomeCounts(run, policy, now);
						}
						// Not when the run was stopped or lost the lease: another process
						// cleans (and vacuums) now.
						if (vacuum && run.outcome == null && !run.shouldStop()) {
							this.vacuums.vacuumOrLog();
						}
					}
					finally {
						releaseLease(run);
					}
				}
			}
			finishRun(run);
		}
		catch (RuntimeException ex) {
			run.fail(ex);
		}
		return report(run);
	}

	/**
	 * Deletes finished jobs of {@code status} that finished more than {@code olderThan}
	 * ago, whatever the retention policy says (a manual operation: it does not wait for
	 * the cleanup lease). Then reclaims the space as a scheduled run does.
	 * @param status {@code SUCCEEDED}, {@code FAILED} or {@code CANCELLED}
	 * @param olderThan zero or positive; zero deletes every finished job of that status
	 */
	public RetentionReport purge(JobStatus status, Duration olderThan) {
		Objects.requireNonNull(status, "'status' must not be null");
		Objects.requireNonNull(olderThan, "'olderThan' must not be null");
		if (!status.isFinal()) {
			throw new IllegalArgumentException("Only finished jobs can be purged: pass SUCCEEDED, FAILED or "
					+ "CANCELLED, not " + status + ". Cancel pending or running jobs first if they must go.");
		}
		if (olderThan.isNegative()) {
			throw new IllegalArgumentException("'olderThan' must be zero or positive (got " + olderThan
					+ "), for example Duration.ofDays(7) to delete jobs that finished more than a week ago");
		}
		Instant now = this.clock.instant();
		Instant cutoff = now.minus(olderThan);
		Run run = new Run(now, () -> false);
		try {
			deleteExpired(run, (candidate, type) -> (candidate == status) ? Optional.of(cutoff) : Optional.empty(),
					false);
			finishRun(run);
		}
		catch (RuntimeException ex) {
			run.fail(ex);
		}
		return report(run);
	}

	/**
	 * Checkpoints the write-ahead log where the store has one of its own: truncating when
	 * no job runs in this process, else passive.
	 * @return the sizes after the checkpoint (or as they are, without file maintenance)
	 */
	public StorageStats checkpoint() {
		return (this.files != null) ? this.files.checkpoint(this.idle.getAsBoolean()) : this.store.storage();
	}

	/**
	 * Housekeeping that deletes nothing: the vacuum of the queue's tables where due
	 * (under the cleanup lease, so one process does it), then the checkpoint.
	 * @return the sizes after the checkpoint
	 */
	public StorageStats upkeep() {
		if (this.vacuums != null && this.vacuums.dueOrLog()) {
			Instant now = this.clock.instant();
			if (this.store.acquireLease(LEASE_TASK, this.owner, now, now.plus(this.settings.lease()))) {
				try {
					this.vacuums.vacuumOrLog();
				}
				finally {
					releaseLease(new Run(now, () -> false));
				}
			}
		}
		return checkpoint();
	}

	private void deleteExpired(Run run, BiFunction<JobStatus, String, Optional<Instant>> cutoffs, boolean leased) {
		// A chain goes whole, once each step is older than the longest retention of its
		// status over the types that have finished jobs in it: never before any of its
		// steps would go alone.
		Map<JobStatus, Instant> chainCutoffs = new EnumMap<>(JobStatus.class);
		for (JobStatus status : FINAL_STATUSES) {
			Instant chainCutoff = null;
			boolean keptForever = false;
			for (String type : this.store.finishedTypes(status)) {
				Optional<Instant> cutoff = cutoffs.apply(status, type);
				keptForever |= cutoff.isEmpty();
				if (cutoff.isPresent() && (chainCutoff == null || cutoff.get().isBefore(chainCutoff))) {
					chainCutoff = cutoff.get();
				}
				if (cutoff.isEmpty()) {
					continue;
				}
				while (true) {
					if (run.shouldStop()) {
						run.end(RetentionReport.Outcome.STOPPED, null);
						return;
					}
					long started = System.nanoTime();
					int deleted = this.store.deleteFinished(status, type, cutoff.get(), this.settings.batchSize());
					run.batches++;
					run.deleted.merge(status, (long) deleted, Long::sum);
					if (deleted > 0) {
						if (leased && !run.renewLease()) {
							return;
						}
						run.pause(System.nanoTime() - started);
					}
					if (deleted < this.settings.batchSize()) {
						break;
					}
				}
			}
			if (!keptForever && chainCutoff != null) {
				chainCutoffs.put(status, chainCutoff);
			}
		}
		deleteExpiredChains(run, chainCutoffs, leased);
	}

	/**
	 * Deletes whole chains; their steps count with the succeeded jobs in the report (a
	 * chain goes once its last step finished, most often with success).
	 */
	private void deleteExpiredChains(Run run, Map<JobStatus, Instant> cutoffs, boolean leased) {
		if (cutoffs.isEmpty()) {
			return;
		}
		while (true) {
			if (run.shouldStop()) {
				run.end(RetentionReport.Outcome.STOPPED, null);
				return;
			}
			long started = System.nanoTime();
			int deleted = this.store.deleteFinishedChains(cutoffs, this.settings.batchSize());
			if (deleted == 0) {
				return;
			}
			run.batches++;
			run.deleted.merge(JobStatus.SUCCEEDED, (long) deleted, Long::sum);
			if (leased && !run.renewLease()) {
				return;
			}
			run.pause(System.nanoTime() - started);
		}
	}

	/** Reclaims space and checkpoints, unless the run was stopped or failed. */
	private void finishRun(Run run) {
		if (run.outcome == null) {
			reclaim(run);
		}
		if (run.outcome == null || run.outcome == RetentionReport.Outcome.SKIPPED) {
			run.walBytes = checkpoint().walBytes();
		}
		run.end(RetentionReport.Outcome.COMPLETED, null);
	}

	private void reclaim(Run run) {
		if (this.files == null) {
			return;
		}
		StorageStats storage = this.store.storage();
		if (storage.freeBytes() == 0) {
			return;
		}
		if (!storage.incrementalVacuum()) {
			if (run.total() > 0 && !this.reportedNoIncrementalVacuum) {
				this.reportedNoIncrementalVacuum = true;
				logger.info("The queue database was created without incremental vacuum (auto_vacuum=INCREMENTAL), so "
						+ "the space of deleted jobs ({} bytes free now) is reused but the file does not shrink. To "
						+ "let it shrink, call JobQueueMaintenance.enableIncrementalVacuum() once, off-peak: it "
						+ "rewrites the whole file.", storage.freeBytes());
			}
			return;
		}
		for (int step = 0; step < this.settings.maxReclaimSteps(); step++) {
			if (run.shouldStop()) {
				run.end(RetentionReport.Outcome.STOPPED, null);
				return;
			}
			long started = System.nanoTime();
			long bytes = this.files.reclaimFreeSpace(this.settings.reclaimPagesPerStep());
			run.bytesReclaimed += bytes;
			if (bytes == 0) {
				return;
			}
			run.pause(System.nanoTime() - started);
		}
	}

	/**
	 * Deletes the per-minute outcome counts older than the longest retention of finished
	 * jobs (the oldest runs whose attempts may still be kept), and never those of the
	 * last {@link #OUTCOME_COUNTS_KEPT_AT_LEAST} (the dashboard's longest chart); kept
	 * forever when some finished jobs are. A day of minutes per transaction.
	 */
	private void deleteExpiredOutcomeCounts(Run run, RetentionPolicy policy, Instant now) {
		Optional<Duration> longest = policy.longest();
		if (longest.isEmpty() || run.outcome != null) {
			return;
		}
		Duration kept = (longest.get().compareTo(OUTCOME_COUNTS_KEPT_AT_LEAST) > 0) ? longest.get()
				: OUTCOME_COUNTS_KEPT_AT_LEAST;
		long deleted = 0;
		while (!run.shouldStop()) {
			int rows = this.store.deleteOutcomeMinutes(now.minus(kept), (int) Duration.ofDays(1).toMinutes());
			deleted += rows;
			if (rows == 0) {
				break;
			}
		}
		if (deleted > 0) {
			logger.debug("Deleted {} per-minute outcome count(s) older than {}", deleted, kept);
		}
	}

	/**
	 * Deletes the rows of workers silent for longer than the settings keep them; a
	 * failure only logs.
	 */
	private void pruneSilentWorkers(Instant now) {
		Duration keptFor = this.settings.workerRowsKeptFor();
		if (keptFor == null) {
			return;
		}
		try {
			int pruned = this.store.deleteSilentWorkers(now.minus(keptFor));
			if (pruned > 0) {
				logger.debug("Deleted the rows of {} worker(s) silent for more than {}", pruned, keptFor);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not delete the rows of silent workers; the next run tries again: {}", ex.toString());
		}
	}

	private void releaseLease(Run run) {
		boolean interrupted = Thread.interrupted();
		try {
			this.store.releaseLease(LEASE_TASK, this.owner);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release the retention cleanup lease; it expires by itself within {}: {}",
					this.settings.lease(), ex.toString());
		}
		finally {
			if (interrupted || run.interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private RetentionReport report(Run run) {
		Duration duration = Duration.ofNanos(System.nanoTime() - run.startNanos);
		RetentionReport report = new RetentionReport(run.startedAt, duration, run.outcome, run.deleted, run.batches,
				run.bytesReclaimed, run.walBytes, run.detail);
		this.lastReport = report;
		if (report.totalDeleted() > 0 || report.bytesReclaimed() > 0) {
			logger.info(
					"Retention cleanup {} in {} ms: deleted {} finished job(s) {} in {} batch(es), handed {} "
							+ "bytes back to the file system, write-ahead log now {} bytes",
					report.outcome(), duration.toMillis(), report.totalDeleted(), report.deleted(), report.batches(),
					report.bytesReclaimed(), report.walBytes());
		}
		else if (report.outcome() == RetentionReport.Outcome.SKIPPED) {
			logger.debug("Retention cleanup skipped: {}", report.detail());
		}
		return report;
	}

	/** The state of one run. */
	private final class Run {

		final Instant startedAt;

		final long startNanos = System.nanoTime();

		final BooleanSupplier stop;

		final Map<JobStatus, Long> deleted = new EnumMap<>(JobStatus.class);

		int batches;

		long bytesReclaimed;

		long walBytes = -1;

		RetentionReport.Outcome outcome;

		String detail;

		boolean interrupted;

		long leaseRenewedNanos = System.nanoTime();

		Run(Instant startedAt, BooleanSupplier stop) {
			this.startedAt = startedAt;
			this.stop = stop;
		}

		long total() {
			return this.deleted.values().stream().mapToLong(Long::longValue).sum();
		}

		void end(RetentionReport.Outcome outcome, String detail) {
			if (this.outcome == null) {
				this.outcome = outcome;
				this.detail = detail;
			}
		}

		void fail(RuntimeException ex) {
			this.outcome = RetentionReport.Outcome.FAILED;
			this.detail = ex.getMessage();
			logger.warn("Retention cleanup failed after deleting {} job(s); what was deleted stays deleted and the "
					+ "next run continues: {}", total(), ex.toString(), ex);
		}

		boolean shouldStop() {
			if (Thread.interrupted()) {
				this.interrupted = true;
			}
			return this.interrupted || this.stop.getAsBoolean();
		}

		/**
		 * Renews the lease once a quarter of it has passed; ends the run if it was lost.
		 */
		boolean renewLease() {
			Duration lease = RetentionCleaner.this.settings.lease();
			if (System.nanoTime() - this.leaseRenewedNanos < lease.toNanos() / 4) {
				return true;
			}
			Instant now = RetentionCleaner.this.clock.instant();
			if (RetentionCleaner.this.store.acquireLease(LEASE_TASK, RetentionCleaner.this.owner, now,
					now.plus(lease))) {
				this.leaseRenewedNanos = System.nanoTime();
				return true;
			}
			end(RetentionReport.Outcome.LEASE_LOST, "another process took over the cleanup lease after it expired");
			return false;
		}

		/** Leaves the write lock to others for a while, waking up early to stop. */
		void pause(long batchNanos) {
			long remaining = Math.min(MAX_PAUSE_NANOS,
					(long) (batchNanos * RetentionCleaner.this.settings.batchPause()));
			long deadline = System.nanoTime() + remaining;
			while (remaining > 0 && !shouldStop()) {
				try {
					TimeUnit.NANOSECONDS.sleep(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(50)));
				}
				catch (InterruptedException ex) {
					this.interrupted = true;
					return;
				}
				remaining = deadline - System.nanoTime();
			}
		}

	}

}
