package dev.jobqueue.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobSchedules;
import dev.jobqueue.JobStatus;
import dev.jobqueue.PausedType;
import dev.jobqueue.ScheduleInfo;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.store.JobProgress;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.QueueInsights.JobDetail;
import dev.jobqueue.core.store.QueueInsights.JobPage;
import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.core.store.QueueInsights.JobSummary;
import dev.jobqueue.core.store.QueueSnapshot;

/**
 * The {@code jobqueue} actuator endpoint: the state of the queue, one job, lists of jobs,
 * schedules and paused types; retry or cancel a job, pause or resume a type.
 *
 * <ul>
 * <li>{@code GET /actuator/jobqueue}: counts by status and by type, the oldest claimable
 * job and its age, the oldest running jobs with worker and heartbeat, stuck jobs, the
 * retry distribution, the Top-N error codes, pending types no live worker handles,
 * workers, retention and the SQLite file's state.</li>
 * <li>{@code GET /actuator/jobqueue/{id}}: one job with payload, result, attempts and
 * event timeline, its chain with the chain's steps, what it waits for and what waits for
 * it.</li>
 * <li>{@code GET /actuator/jobqueue/{status}?type=&errorCode=&size=&before=}: jobs newest
 * first, where status is one of
 * {@code waiting, pending, running, succeeded, failed, cancelled} or {@code all};
 * {@code before} is the {@code nextBefore} of the previous page.</li>
 * <li>{@code GET /actuator/jobqueue/schedules} (every schedule with its next run) and
 * {@code GET /actuator/jobqueue/paused} (paused types).</li>
 * <li>{@code POST /actuator/jobqueue/{id}/retry}, {@code /{id}/cancel},
 * {@code /{chainId}/cancel-chain}, {@code /{type}/pause} and {@code /{type}/resume}.</li>
 * </ul>
 * Like Boot's own endpoints, its write operations are off unless granted
 * ({@code management.endpoint.jobqueue.access=unrestricted}), and values (payloads,
 * results, error details, event details, dedup keys) are shown according to
 * {@code management.endpoint.jobqueue.show-values}: {@link QueueEndpointWebExtension}
 * applies it per request over HTTP; over JMX, a trusted channel, this class treats
 * {@code when-authorized} as authorized, as Boot's {@code env} endpoint does.
 *
 * <p>
 * Longer than most classes here: its answers are nested records, as Boot nests its
 * endpoints' descriptors.
 */
@Endpoint(id = "jobqueue", defaultAccess = Access.READ_ONLY)
public class QueueEndpoint {

	/** What hidden values are replaced with, as Boot's sanitizer does. */
	static final String HIDDEN = "******";

	/** Page size of job lists when none is asked for. */
	public static final int DEFAULT_PAGE_SIZE = 20;

	/** Largest page size of job lists. */
	public static final int MAX_PAGE_SIZE = 100;

	private final QueueInsights insights;

	private final JobQueue queue;

	private final JobSchedules schedules;

	private final QueueProperties properties;

	private final Clock clock;

	private final Supplier<Optional<RetentionReport>> retentionReport;

	private final Show showValues;

	private final Supplier<LocalWorker> localWorker;

	/**
	 * @param retentionReport the latest cleanup's report, if any
	 * @param showValues whether payloads, results, error details and dedup keys are shown
	 */
	public QueueEndpoint(QueueInsights insights, JobQueue queue, JobSchedules schedules, QueueProperties properties,
			Clock clock, Supplier<Optional<RetentionReport>> retentionReport, Show showValues) {
		this(insights, queue, schedules, properties, clock, retentionReport, showValues, () -> null);
	}

	/**
	 * @param retentionReport the latest cleanup's report, if any
	 * @param showValues whether payloads, results, error details and dedup keys are shown
	 * @param localWorker this process's worker as it stands now, or {@code null} when it
	 * runs none
	 */
	public QueueEndpoint(QueueInsights insights, JobQueue queue, JobSchedules schedules, QueueProperties properties,
			Clock clock, Supplier<Optional<RetentionReport>> retentionReport, Show showValues,
			Supplier<LocalWorker> localWorker) {
		this.localWorker = (localWorker != null) ? localWorker : () -> null;
		this.insights = Objects.requireNonNull(insights, "'insights' must not be null");
		this.queue = Objects.requireNonNull(queue, "'queue' must not be null");
		this.schedules = Objects.requireNonNull(schedules, "'schedules' must not be null");
		this.showValues = Objects.requireNonNull(showValues, "'showValues' must not be null");
		this.properties = Objects.requireNonNull(properties, "'properties' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		this.retentionReport = (retentionReport != null) ? retentionReport : Optional::empty;
	}

	/** The state of the queue, computed now. */
	@ReadOperation
	public QueueReport queue() {
		Instant now = this.clock.instant();
		QueueSnapshot snapshot = this.insights.snapshot(now, this.properties.snapshotSettings());
		Map<String, Long> counts = new LinkedHashMap<>();
		long total = 0;
		for (Map.Entry<JobStatus, Long> entry : snapshot.countsByStatus().entrySet()) {
			counts.put(entry.getKey().dbValue(), entry.getValue());
			total += entry.getValue();
		}
		counts.put("total", total);
		Map<String, Map<String, Long>> byType = new LinkedHashMap<>();
		snapshot.counts().forEach((type, byStatus) -> {
			Map<String, Long> values = new LinkedHashMap<>();
			byStatus.forEach((status, count) -> values.put(status.dbValue(), count));
			byType.put(type, values);
		});
		long pending = snapshot.countsByStatus().get(JobStatus.PENDING);
		Pending pendingReport = new Pending(snapshot.claimable(), pending - snapshot.claimable(),
				(snapshot.oldestClaimable() != null) ? JobView.of(snapshot.oldestClaimable(), now) : null);
		Stuck stuck = new Stuck(this.properties.getObservability().getStuckAfter().toString(), snapshot.stuck().count(),
				snapshot.stuck().oldest().stream().map((job) -> JobView.of(job, now)).toList());
		return new QueueReport(now, counts, byType, pendingReport,
				snapshot.oldestRunning().stream().map((job) -> JobView.of(job, now)).toList(), stuck,
				new Retries(snapshot.retries(), snapshot.retriesByType()), snapshot.errors(), snapshot.unhandled(),
				this.queue.pausedTypes(), snapshot.workers(), this.localWorker.get(), retention(), snapshot.storage());
	}

	/**
	 * One job ({@code /actuator/jobqueue/42}), a page of jobs
	 * ({@code /actuator/jobqueue/failed?type=email}), the schedules or the paused types.
	 * @param idOrStatus a job id, a status, {@code all}, {@code schedules} or
	 * {@code paused}
	 * @param type only jobs of this type
	 * @param errorCode only jobs whose latest failure has this code
	 * @param before only jobs with a smaller id: the {@code nextBefore} of the previous
	 * page
	 * @param size page size, at most {@value #MAX_PAGE_SIZE}
	 * @return the answer, or {@code null} for a job that does not exist
	 */
	@ReadOperation
	public @Nullable Object jobs(@Selector String idOrStatus, @Nullable String type, @Nullable String errorCode,
			@Nullable Long before, @Nullable Integer size) {
		return read(idOrStatus, type, errorCode, before, size, this.showValues.isShown(true));
	}

	/**
	 * Retries a failed or cancelled job, cancels a pending or running one, or pauses or
	 * resumes a job type.
	 * @param target a job id for {@code retry} and {@code cancel}, a job type for
	 * {@code pause} and {@code resume}
	 * @param action {@code retry}, {@code cancel}, {@code pause} or {@code resume}
	 * @return whether it applied, and if not why
	 */
	@WriteOperation
	public ActionResult act(@Selector String target, @Selector String action) {
		return apply(target, action).result();
	}

	/**
	 * The answer of a read with a selector; see {@link #jobs}.
	 * @param showValues whether values are shown to the caller
	 * @throws InvalidEndpointRequestException for a selector, status or page size that is
	 * not valid
	 */
	@Nullable Object read(String idOrStatus, @Nullable String type, @Nullable String errorCode, @Nullable Long before,
			@Nullable Integer size, boolean showValues) {
		Long id = parseId(idOrStatus);
		if (id != null) {
			int preview = showValues ? Math.max(0, this.properties.getObservability().getPayloadPreview()) : 0;
			return this.insights.job(id, preview)
				.map((detail) -> JobDetailView.of(detail, this.clock.instant(), showValues))
				.orElse(null);
		}
		if (idOrStatus.equalsIgnoreCase("schedules")) {
			return new ScheduleList(this.schedules.schedules());
		}
		if (idOrStatus.equalsIgnoreCase("paused")) {
			return new PausedList(this.queue.pausedTypes());
		}
		JobStatus status = parseStatus(idOrStatus);
		int pageSize = (size != null) ? size : DEFAULT_PAGE_SIZE;
		if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
			throw new InvalidEndpointRequestException("Page size " + pageSize + " is out of range: use 1 to "
					+ MAX_PAGE_SIZE + " and page on with ?before=<nextBefore>", "Invalid page size");
		}
		JobPage page = this.insights
			.jobs(new JobQuery(status, blankToNull(type), blankToNull(errorCode), before, pageSize));
		Instant now = this.clock.instant();
		return new JobListView(page.jobs().stream().map((job) -> JobView.of(job, now)).toList(), page.nextBefore());
	}

	/**
	 * Applies a write; see {@link #act}.
	 * @throws InvalidEndpointRequestException for an unknown action, or a target that
	 * does not fit it
	 */
	Applied apply(String target, String action) {
		String normalized = action.toLowerCase(Locale.ROOT);
		return switch (normalized) {
			case "retry", "cancel" -> applyToJob(target, normalized);
			case "cancel-chain" -> cancelChain(target, normalized);
			case "pause", "resume" -> applyToType(target, normalized);
			default -> throw new InvalidEndpointRequestException("Unknown action '" + action + "': use POST "
					+ "/actuator/jobqueue/{id}/retry, /{id}/cancel, /{chainId}/cancel-chain, /{type}/pause or "
					+ "/{type}/resume", "Unknown action");
		};
	}

	private Applied cancelChain(String target, String action) {
		Long chainId = parseId(target);
		if (chainId == null) {
			throw new InvalidEndpointRequestException(
					"'" + target + "' is not a chain id: cancel-chain takes the id of "
							+ "a chain (its first step's id), as in POST /actuator/jobqueue/42/cancel-chain",
					"Not a chain id");
		}
		if (this.queue.findChain(chainId).isEmpty()) {
			return new Applied(new ActionResult(target, action, false, null, "There is no chain " + chainId
					+ " (a chain's id is its first step's id; finished chains are deleted after their retention)"),
					Outcome.NO_SUCH_JOB);
		}
		int cancelled = this.queue.cancelChain(chainId);
		if (cancelled == 0) {
			return new Applied(new ActionResult(target, action, false, null,
					"Every step of chain " + chainId + " had finished already"), Outcome.WRONG_STATE);
		}
		return new Applied(new ActionResult(target, action, true, null, cancelled + " unfinished step(s) cancelled"),
				Outcome.APPLIED);
	}

	private Applied applyToJob(String target, String action) {
		Long id = parseId(target);
		if (id == null) {
			throw new InvalidEndpointRequestException("'" + target + "' is not a job id: " + action + " takes the id "
					+ "of a job, as in POST /actuator/jobqueue/42/" + action, "Not a job id");
		}
		var job = this.queue.find(id);
		if (job.isEmpty()) {
			return new Applied(
					new ActionResult(target, action, false, null,
							"There is no job " + id + " (finished jobs are deleted once their retention has passed)"),
					Outcome.NO_SUCH_JOB);
		}
		boolean applied;
		try {
			applied = action.equals("retry") ? this.queue.retry(id) : this.queue.cancel(id);
		}
		catch (JobQueueException ex) {
			return new Applied(new ActionResult(target, action, false, job.get().status().dbValue(), ex.getMessage()),
					Outcome.WRONG_STATE);
		}
		String status = this.queue.find(id).map((found) -> found.status().dbValue()).orElse(null);
		if (applied) {
			return new Applied(new ActionResult(target, action, true, status, null), Outcome.APPLIED);
		}
		String message = action.equals("retry")
				? "Only failed or cancelled jobs can be retried; this one is " + job.get().status().dbValue()
				: "Only waiting, pending or running jobs can be cancelled; this one is " + job.get().status().dbValue();
		return new Applied(new ActionResult(target, action, false, status, message), Outcome.WRONG_STATE);
	}

	private Applied applyToType(String type, String action) {
		boolean pause = action.equals("pause");
		boolean applied;
		try {
			applied = pause ? this.queue.pause(type) : this.queue.resume(type);
		}
		catch (JobQueueException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid job type");
		}
		String status = pause ? "paused" : "active";
		String message = applied ? null
				: pause ? "Type '" + type + "' was paused already" : "Type '" + type + "' was not paused";
		return new Applied(new ActionResult(type, action, applied, status, message),
				applied ? Outcome.APPLIED : Outcome.UNCHANGED);
	}

	private Retention retention() {
		QueueProperties.Retention retention = this.properties.getRetention();
		Map<String, String> perType = new LinkedHashMap<>();
		retention.getPerType().forEach((type, duration) -> perType.put(type, duration.toString()));
		RetentionReport report = this.retentionReport.get().orElse(null);
		return new Retention(retention.isEnabled(), retention.getSucceeded().toString(),
				retention.getFailed().toString(), retention.getCancelled().toString(), perType,
				retention.getBatchSize(), retention.getInterval().toString(),
				(report != null) ? LastCleanup.of(report) : null);
	}

	private static Long parseId(String value) {
		if (!value.isEmpty() && value.chars().allMatch(Character::isDigit) && value.length() < 19) {
			return Long.parseLong(value);
		}
		return null;
	}

	private static JobStatus parseStatus(String value) {
		if (value.equalsIgnoreCase("all")) {
			return null;
		}
		for (JobStatus status : JobStatus.values()) {
			if (status.dbValue().equalsIgnoreCase(value)) {
				return status;
			}
		}
		throw new InvalidEndpointRequestException("'" + value + "' is neither a job id nor a status: use "
				+ "/actuator/jobqueue/{id}, one of waiting, pending, running, succeeded, failed, cancelled, all, or "
				+ "/actuator/jobqueue/schedules or /actuator/jobqueue/paused", "Unknown job id or status");
	}

	private static String blankToNull(String value) {
		return (value == null || value.isBlank()) ? null : value;
	}

	private static Double secondsSince(Instant instant, Instant now) {
		if (instant == null) {
			return null;
		}
		return Math.max(0, Duration.between(instant, now).toMillis()) / 1000.0;
	}

	/**
	 * The answer of {@code GET /actuator/jobqueue}.
	 *
	 * @param at when it was computed
	 * @param counts jobs per status, and their total
	 * @param byType jobs per type and status
	 * @param pending due and scheduled pending jobs and the oldest due one
	 * @param oldestRunning running jobs claimed longest ago
	 * @param stuck running jobs without heartbeat for longer than stuck-after
	 * @param retries attempts used → jobs, over unfinished and failed jobs
	 * @param errors the Top-N error codes
	 * @param unhandled pending jobs per type that no live worker handles (held: not
	 * counted as claimable)
	 * @param paused the paused types, whose pending jobs are held (not counted as
	 * claimable)
	 * @param workers registered workers
	 * @param thisWorker the worker of the process that answers, with the jobs it holds
	 * claimed ahead apart from those it runs; {@code null} when it runs none
	 * @param retention retention settings and the latest cleanup
	 * @param storage the state of the database the queue lives in (SQLite: file, WAL,
	 * free pages; PostgreSQL: table and index sizes, dead rows, connections)
	 */
	public record QueueReport(Instant at, Map<String, Long> counts, Map<String, Map<String, Long>> byType,
			Pending pending, List<JobView> oldestRunning, Stuck stuck, Retries retries,
			QueueSnapshot.ErrorSummary errors, Map<String, Long> unhandled, List<PausedType> paused,
			List<QueueSnapshot.WorkerState> workers, LocalWorker thisWorker, Retention retention,
			QueueSnapshot.StorageState storage) {

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

	/**
	 * A job in a list.
	 *
	 * @param id its id
	 * @param type its type
	 * @param status its status
	 * @param priority higher runs first
	 * @param attempts attempts used
	 * @param maxAttempts attempts it may use
	 * @param createdAt when it was enqueued
	 * @param runAt when it is or was due
	 * @param startedAt claim time of its latest run
	 * @param finishedAt when it finished
	 * @param workerId worker of its latest run
	 * @param heartbeatAt latest heartbeat of its running worker
	 * @param errorCode code of its latest failure
	 * @param waitingSeconds for a due pending job, seconds since it was due
	 * @param runningSeconds for a running job, seconds since it was claimed
	 * @param heartbeatAgeSeconds for a running job, seconds since its last heartbeat
	 */
	public record JobView(long id, String type, String status, int priority, int attempts, int maxAttempts,
			Instant createdAt, Instant runAt, Instant startedAt, Instant finishedAt, String workerId,
			Instant heartbeatAt, String errorCode, Double waitingSeconds, Double runningSeconds,
			Double heartbeatAgeSeconds) {

		static JobView of(JobSummary job, Instant now) {
			boolean running = job.status() == JobStatus.RUNNING;
			boolean due = job.status() == JobStatus.PENDING && !job.runAt().isAfter(now);
			return new JobView(job.id(), job.type(), job.status().dbValue(), job.priority(), job.attempts(),
					job.maxAttempts(), job.createdAt(), job.runAt(), job.startedAt(), job.finishedAt(), job.workerId(),
					job.heartbeatAt(), job.errorCode(), due ? secondsSince(job.runAt(), now) : null,
					running ? secondsSince(job.startedAt(), now) : null,
					running ? secondsSince(job.heartbeatAt(), now) : null);
		}

	}

	/**
	 * A job's chain (docs/chains.md).
	 *
	 * @param chainId the chain's id (its first step's id)
	 * @param chainIndex this job's step, 0 first
	 * @param length how many jobs the chain has
	 * @param steps its steps by index (at most {@link QueueInsights.JobLinks#MAX_LISTED})
	 */
	public record ChainView(long chainId, int chainIndex, long length, List<JobView> steps) {

		static ChainView of(QueueInsights.JobLinks links, Instant now) {
			if (links.chainId() == null) {
				return null;
			}
			return new ChainView(links.chainId(), (links.chainIndex() != null) ? links.chainIndex() : 0,
					links.chainLength(), links.chainSteps().stream().map((step) -> JobView.of(step, now)).toList());
		}

	}

	/**
	 * What a job waits for and what waits for it.
	 *
	 * @param unfinished how many of the jobs it waits for are unfinished (0 unless it is
	 * waiting)
	 * @param onDependencyFailure what it does when one of them fails or is cancelled, or
	 * {@code null} when it waits for nothing
	 * @param waitsForCount how many jobs it waits (or waited) for
	 * @param waitsFor those jobs (at most {@link QueueInsights.JobLinks#MAX_LISTED})
	 * @param waitedByCount how many jobs wait (or waited) for it
	 * @param waitedBy those jobs (at most {@link QueueInsights.JobLinks#MAX_LISTED})
	 */
	public record DependenciesView(int unfinished, String onDependencyFailure, long waitsForCount,
			List<JobView> waitsFor, long waitedByCount, List<JobView> waitedBy) {

		static DependenciesView of(QueueInsights.JobLinks links, Instant now) {
			if (links.waitsForCount() == 0 && links.waitedByCount() == 0) {
				return null;
			}
			return new DependenciesView(links.unfinishedDependencies(),
					(links.dependencyPolicy() != null) ? links.dependencyPolicy().dbValue() : null,
					links.waitsForCount(), links.waitsFor().stream().map((job) -> JobView.of(job, now)).toList(),
					links.waitedByCount(), links.waitedBy().stream().map((job) -> JobView.of(job, now)).toList());
		}

	}

	/**
	 * A page of jobs, newest first.
	 *
	 * @param jobs the jobs
	 * @param nextBefore pass as {@code ?before=} for the next page; {@code null} on the
	 * last page
	 */
	public record JobListView(List<JobView> jobs, Long nextBefore) {

	}

	/**
	 * One job in full.
	 *
	 * @param job its state
	 * @param leaseUntil until when its running worker holds it
	 * @param errorDetail summary of its latest failure ({@value #HIDDEN} unless values
	 * are shown)
	 * @param dedupKey its deduplication key ({@value #HIDDEN} unless values are shown)
	 * @param cancelRequested whether a cancel of the running job was asked for
	 * @param traceParent the W3C traceparent current at enqueue
	 * @param payload payload length and preview (its length only, unless values are
	 * shown)
	 * @param result result length and preview (its length only, unless values are shown)
	 * @param attempts every run (error details hidden unless values are shown)
	 * @param events its timeline, oldest first (details hidden unless values are shown)
	 * @param progress the latest progress its handler reported
	 * ({@code JobContext.progress}), or {@code null} (its message hidden unless values
	 * are shown)
	 * @param chain the chain the job is a step of, with its steps, or {@code null}
	 * @param dependencies what the job waits for and what waits for it, or {@code null}
	 * when neither
	 */
	public record JobDetailView(JobView job, Instant leaseUntil, String errorDetail, String dedupKey,
			boolean cancelRequested, String traceParent, QueueInsights.Text payload, QueueInsights.Text result,
			List<QueueInsights.Attempt> attempts, List<QueueInsights.Event> events, JobProgress progress,
			ChainView chain, DependenciesView dependencies) {

		static JobDetailView of(JobDetail detail, Instant now, boolean showValues) {
			ChainView chain = ChainView.of(detail.links(), now);
			DependenciesView dependencies = DependenciesView.of(detail.links(), now);
			if (showValues) {
				return new JobDetailView(JobView.of(detail.job(), now), detail.leaseUntil(), detail.errorDetail(),
						detail.dedupKey(), detail.cancelRequested(), detail.traceParent(), detail.payload(),
						detail.result(), detail.attempts(), detail.events(), detail.progress(), chain, dependencies);
			}
			List<QueueInsights.Attempt> attempts = detail.attempts()
				.stream()
				.map((attempt) -> new QueueInsights.Attempt(attempt.run(), attempt.attempt(), attempt.workerId(),
						attempt.startedAt(), attempt.finishedAt(), attempt.outcome(), attempt.errorCode(),
						hide(attempt.errorDetail()), hide(attempt.errorTrace())))
				.toList();
			List<QueueInsights.Event> events = detail.events()
				.stream()
				.map((event) -> new QueueInsights.Event(event.at(), event.event(), event.actor(), hide(event.detail())))
				.toList();
			return new JobDetailView(JobView.of(detail.job(), now), detail.leaseUntil(), hide(detail.errorDetail()),
					hide(detail.dedupKey()), detail.cancelRequested(), detail.traceParent(),
					lengthOnly(detail.payload()), lengthOnly(detail.result()), attempts, events,
					hide(detail.progress()), chain, dependencies);
		}

		private static JobProgress hide(JobProgress progress) {
			return (progress != null)
					? new JobProgress(progress.done(), progress.total(), hide(progress.message()), progress.at())
					: null;
		}

		private static String hide(String value) {
			return (value != null) ? HIDDEN : null;
		}

		private static QueueInsights.Text lengthOnly(QueueInsights.Text text) {
			return (text != null) ? new QueueInsights.Text(text.length(), null, text.length() > 0) : null;
		}

	}

	/**
	 * The outcome of a write operation.
	 *
	 * @param target the job id or the job type
	 * @param action {@code retry}, {@code cancel}, {@code pause} or {@code resume}
	 * @param applied whether anything changed
	 * @param status the job's status now ({@code null} if there is no such job), or the
	 * type's ({@code paused} or {@code active})
	 * @param message why it did not apply, or {@code null}
	 */
	public record ActionResult(String target, String action, boolean applied, String status, String message) {

	}

	/**
	 * Every schedule with its next run.
	 *
	 * @param schedules the schedules, ordered by name
	 */
	public record ScheduleList(List<ScheduleInfo> schedules) {

	}

	/**
	 * The paused job types.
	 *
	 * @param paused the types, ordered by type
	 */
	public record PausedList(List<PausedType> paused) {

	}

	/** How a write went, for the HTTP status of {@link QueueEndpointWebExtension}. */
	enum Outcome {

		APPLIED, UNCHANGED, NO_SUCH_JOB, WRONG_STATE

	}

	record Applied(ActionResult result, Outcome outcome) {

	}

}
