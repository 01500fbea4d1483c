package dev.jobqueue.actuate;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
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

import dev.jobqueue.BulkResult;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobSchedules;
import dev.jobqueue.JobStatus;
import dev.jobqueue.PausedType;
import dev.jobqueue.ScheduleInfo;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.views.HeldJobs;
import dev.jobqueue.views.JobPage;
import dev.jobqueue.views.JobQuery;
import dev.jobqueue.views.JobSearch;
import dev.jobqueue.views.KeyQuery;
import dev.jobqueue.views.KeyState;
import dev.jobqueue.views.QueueSnapshot;
import dev.jobqueue.views.QueueViews;
import dev.jobqueue.views.SearchResult;
import dev.jobqueue.views.TypeKeys;
import dev.jobqueue.views.ValuePolicy;

/**
 * The {@code jobqueue} actuator endpoint: the state of the queue, one job, lists of jobs,
 * schedules and paused types; retry or cancel a job, pause or resume a type.
 *
 * <ul>
 * <li>{@code GET /actuator/jobqueue}: counts by status and by type, the oldest claimable
 * job and its age, the oldest running jobs with worker and heartbeat, stuck jobs, the
 * retry distribution, the Top-N error codes, pending types no live worker handles,
 * workers, retention, the SQLite file's state, and per type with flow control its due
 * jobs held back by each limit.</li>
 * <li>{@code GET /actuator/jobqueue/{id}}: one job with payload, result, attempts and
 * event timeline, its chain with the chain's steps, what it waits for and what waits for
 * it.</li>
 * <li>{@code GET /actuator/jobqueue/{status}?type=&errorCode=&key=&size=&before=}: jobs
 * newest first, where status is one of
 * {@code waiting, pending, running, succeeded, failed, cancelled} or {@code all};
 * {@code before} is the {@code nextBefore} of the previous page.</li>
 * <li>{@code GET /actuator/jobqueue/search?q=&window=&size=}: jobs found by id, error
 * code, key, an unfinished job's dedup key, or text in the error code among the
 * {@code window} most recent jobs (default 10,000), and in dedup keys, error details and
 * payloads only for a caller who may see values (see {@link JobSearch}).</li>
 * <li>{@code GET /actuator/jobqueue/schedules} (every schedule with its next run) and
 * {@code GET /actuator/jobqueue/paused} (paused types).</li>
 * <li>{@code GET /actuator/jobqueue/keys/{type}?size=}: the type's keys with the largest
 * backlog (pending, due, running and failed jobs per key, 10 unless {@code size} says
 * otherwise), and its keys blocked by a failed job with that job's id (to retry or delete
 * it); with the type's flow control as this process knows it.</li>
 * <li>{@code POST /actuator/jobqueue/{id}/retry} (its durable steps kept),
 * {@code /{id}/retry-forget-steps} (every step runs again), {@code /{id}/cancel},
 * {@code /{chainId}/cancel-chain}, {@code /{type}/pause} and {@code /{type}/resume}.</li>
 * <li>{@code POST /actuator/jobqueue/{retry|cancel|delete}} with a filter as the JSON
 * body ({@code type}, {@code status}, {@code errorCode}, {@code key},
 * {@code enqueuedFrom}, {@code enqueuedTo}, {@code finishedFrom}, {@code finishedTo};
 * instants as ISO-8601), {@code dryRun: true} for the count only, {@code confirm: true}
 * above {@link dev.jobqueue.BulkRequest#CONFIRMATION_BOUND} matching jobs.</li>
 * </ul>
 * Like Boot's own endpoints, its write operations are off unless granted
 * ({@code management.endpoint.jobqueue.access=unrestricted}), and values (payloads,
 * results, error details, event details, dedup keys) are shown according to
 * {@code management.endpoint.jobqueue.show-values}: {@link QueueEndpointWebExtension}
 * applies it per request over HTTP; over JMX, a trusted channel, this class treats
 * {@code when-authorized} as authorized, as Boot's {@code env} endpoint does.
 *
 * <p>
 * Its answers are records of their own: {@link QueueReport} (the state of the queue),
 * {@link JobView} and {@link JobDetailView} (jobs); its writes are in
 * {@code QueueEndpointActions}. It takes the queue's services and the settings it shows
 * ({@link QueueEndpointSettings}), not the properties they are bound from.
 */
@Endpoint(id = "jobqueue", defaultAccess = Access.READ_ONLY)
public class QueueEndpoint {

	/** Page size of job lists when none is asked for. */
	public static final int DEFAULT_PAGE_SIZE = 20;

	/** Largest page size of job lists. */
	public static final int MAX_PAGE_SIZE = 100;

	private final QueueViews views;

	private final JobQueue queue;

	private final JobSchedules schedules;

	private final QueueEndpointSettings settings;

	private final Clock clock;

	private final Supplier<Optional<RetentionReport>> retentionReport;

	private final ValuePolicy values;

	private final Supplier<QueueReport.LocalWorker> localWorker;

	private final QueueEndpointActions actions;

	private final Supplier<Map<String, FlowControl>> flowControls;

	/**
	 * @param settings the queue's settings the endpoint reads with and shows
	 * @param retentionReport the latest cleanup's report, if any
	 * @param showValues whether payloads, results, error details and dedup keys are shown
	 */
	public QueueEndpoint(QueueViews views, JobQueue queue, JobSchedules schedules, QueueEndpointSettings settings,
			Clock clock, Supplier<Optional<RetentionReport>> retentionReport, Show showValues) {
		this(views, queue, schedules, settings, clock, retentionReport, showValues, () -> null);
	}

	/**
	 * @param settings the queue's settings the endpoint reads with and shows
	 * @param retentionReport the latest cleanup's report, if any
	 * @param showValues whether payloads, results, error details and dedup keys are shown
	 * @param localWorker this process's worker as it stands now, or {@code null} when it
	 * runs none
	 */
	public QueueEndpoint(QueueViews views, JobQueue queue, JobSchedules schedules, QueueEndpointSettings settings,
			Clock clock, Supplier<Optional<RetentionReport>> retentionReport, Show showValues,
			Supplier<QueueReport.LocalWorker> localWorker) {
		this(views, queue, schedules, settings, clock, retentionReport, showValues, localWorker, Map::of);
	}

	/**
	 * @param settings the queue's settings the endpoint reads with and shows
	 * @param retentionReport the latest cleanup's report, if any
	 * @param showValues whether payloads, results, error details and dedup keys are shown
	 * @param localWorker this process's worker as it stands now, or {@code null} when it
	 * runs none
	 * @param flowControls the flow control of each type this process handles with limits,
	 * as it stands now (handlers register while the application starts)
	 */
	public QueueEndpoint(QueueViews views, JobQueue queue, JobSchedules schedules, QueueEndpointSettings settings,
			Clock clock, Supplier<Optional<RetentionReport>> retentionReport, Show showValues,
			Supplier<QueueReport.LocalWorker> localWorker, Supplier<Map<String, FlowControl>> flowControls) {
		this.flowControls = (flowControls != null) ? flowControls : Map::of;
		this.localWorker = (localWorker != null) ? localWorker : () -> null;
		this.views = Objects.requireNonNull(views, "'views' must not be null");
		this.queue = Objects.requireNonNull(queue, "'queue' must not be null");
		this.schedules = Objects.requireNonNull(schedules, "'schedules' must not be null");
		this.values = ValuePolicy.of(
				ValuePolicy.Show.valueOf(Objects.requireNonNull(showValues, "'showValues' must not be null").name()),
				null);
		this.settings = Objects.requireNonNull(settings, "'settings' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		this.retentionReport = (retentionReport != null) ? retentionReport : Optional::empty;
		this.actions = new QueueEndpointActions(queue);
	}

	/** The state of the queue, computed now. */
	@ReadOperation
	public QueueReport queue() {
		return queue(this.values.forTrustedCaller());
	}

	/**
	 * The state of the queue, computed now.
	 * @param showValues whether the caller may see values, the database's location (a
	 * file's path, a server's address) among them
	 */
	public QueueReport queue(boolean showValues) {
		return queue(showValues ? ValuePolicy.SHOWN : ValuePolicy.HIDDEN);
	}

	/**
	 * The state of the queue, computed now.
	 * @param values what the caller may see of values, the database's location (a file's
	 * path, a server's address) among them
	 */
	public QueueReport queue(ValuePolicy values) {
		Instant now = this.clock.instant();
		QueueSnapshot snapshot = this.views.snapshot(now,
				this.settings.snapshot().withFlowControls(this.flowControls.get()));
		// Held longer than a worker may stay silent: no transaction lasts that long.
		Instant enqueuedBefore = now.minus(this.settings.snapshot().workerDeadAfter());
		HeldJobs heldJobs = this.views.held(enqueuedBefore, this.settings.snapshot().jobsListed());
		QueueReport.Held held = new QueueReport.Held(enqueuedBefore, heldJobs.count(),
				heldJobs.oldest().stream().map((job) -> JobView.of(job, now)).toList());
		QueueReport report = QueueReport.of(snapshot, now, this.queue.pausedTypes(), this.localWorker.get(),
				this.settings, this.retentionReport.get().orElse(null), held);
		return values.shown() ? report : report.withLocationHidden();
	}

	/**
	 * One job ({@code /actuator/jobqueue/42}), a page of jobs
	 * ({@code /actuator/jobqueue/failed?type=email}), a search
	 * ({@code /actuator/jobqueue/search?q=alice}), the schedules or the paused types.
	 * @param idOrStatus a job id, a status, {@code all}, {@code search},
	 * {@code schedules} or {@code paused}
	 * @param type only jobs of this type
	 * @param errorCode only jobs whose latest failure has this code
	 * @param key only jobs with this key
	 * @param before only jobs with a smaller id: the {@code nextBefore} of the previous
	 * page
	 * @param size page size, at most {@value #MAX_PAGE_SIZE}
	 * @param q what a search looks for
	 * @param window how many of the most recent jobs a search reads for text
	 * @return the answer, or {@code null} for a job that does not exist
	 */
	@ReadOperation
	public @Nullable Object jobs(@Selector String idOrStatus, @Nullable String type, @Nullable String errorCode,
			@Nullable String key, @Nullable Long before, @Nullable Integer size, @Nullable String q,
			@Nullable Integer window) {
		return read(idOrStatus, type, errorCode, key, before, size, q, window, this.values.forTrustedCaller());
	}

	/**
	 * See {@link #jobs(String, String, String, String, Long, Integer, String, Integer)}.
	 */
	public @Nullable Object jobs(String idOrStatus, @Nullable String type, @Nullable String errorCode,
			@Nullable Long before, @Nullable Integer size) {
		return jobs(idOrStatus, type, errorCode, null, before, size, null, null);
	}

	/**
	 * A type's keys ({@code /actuator/jobqueue/keys/charge?size=20}): the busiest by
	 * backlog and the blocked ones.
	 * @param keys {@code keys}
	 * @param type the job type
	 * @param size how many keys each list holds, at most {@value #MAX_PAGE_SIZE}
	 * @return the type's keys
	 */
	@ReadOperation
	public KeysView keys(@Selector String keys, @Selector String type, @Nullable Integer size) {
		return readKeys(keys, type, size);
	}

	/**
	 * The answer of {@link #keys}.
	 * @throws InvalidEndpointRequestException for a path that is not {@code keys/{type}},
	 * or a size out of range
	 */
	KeysView readKeys(String keys, String type, @Nullable Integer size) {
		checkFilter(type, null, null);
		if (!keys.equals("keys")) {
			throw new InvalidEndpointRequestException("GET /actuator/jobqueue/" + keys + "/" + type
					+ " reads nothing: use /actuator/jobqueue/keys/{type} for a type's keys (retry, cancel, pause "
					+ "and resume are POST)", "Unknown read");
		}
		int limit = (size != null) ? size : KeyQuery.DEFAULT_LIMIT;
		if (limit < 1 || limit > KeyQuery.MAX_LIMIT) {
			throw new InvalidEndpointRequestException(
					"Size " + limit + " is out of range: use 1 to " + KeyQuery.MAX_LIMIT + " keys", "Invalid size");
		}
		FlowControl flow = this.flowControls.get().getOrDefault(type, FlowControl.NONE);
		TypeKeys found = this.views.keys(new KeyQuery(type, flow, this.clock.instant(), limit));
		return new KeysView(found.type(), flow.limits() ? QueueReport.Limits.of(flow) : null, found.at(), found.keys(),
				found.blockedKeys(), found.busiest(), found.blocked());
	}

	/**
	 * Retries a failed or cancelled job, cancels a pending or running one, or pauses or
	 * resumes a job type.
	 * @param target a job id for {@code retry} and {@code cancel}, a job type for
	 * {@code pause} and {@code resume}
	 * @param action {@code retry}, {@code retry-forget-steps}, {@code cancel},
	 * {@code cancel-chain}, {@code pause} or {@code resume}
	 * @return whether it applied, and if not why
	 */
	@WriteOperation
	public ActionResult act(@Selector String target, @Selector String action) {
		return apply(target, action).result();
	}

	/**
	 * Retries, cancels or deletes every job the filter matches
	 * ({@code POST /actuator/jobqueue/retry} with the filter as JSON); see
	 * {@link JobQueue#bulk}. Fields left out match everything; instants are ISO-8601.
	 * @param action {@code retry}, {@code cancel} or {@code delete}
	 * @param type the jobs' type
	 * @param status the jobs' status
	 * @param errorCode the jobs' latest error code
	 * @param key the jobs' key
	 * @param enqueuedFrom the jobs were enqueued at or after this
	 * @param enqueuedTo the jobs were enqueued before this
	 * @param finishedFrom the jobs finished at or after this
	 * @param finishedTo the jobs finished before this
	 * @param dryRun whether to only count the jobs the action would touch
	 * @param confirm whether the action may change more than
	 * {@link dev.jobqueue.BulkRequest#CONFIRMATION_BOUND} jobs
	 * @return how many jobs matched and were changed, and if none why
	 */
	@WriteOperation
	public BulkView bulk(@Selector String action, @Nullable String type, @Nullable String status,
			@Nullable String errorCode, @Nullable String key, @Nullable String enqueuedFrom,
			@Nullable String enqueuedTo, @Nullable String finishedFrom, @Nullable String finishedTo,
			@Nullable Boolean dryRun, @Nullable Boolean confirm) {
		return bulk(action, new QueueEndpointActions.BulkFilter(type, status, errorCode, key, enqueuedFrom, enqueuedTo,
				finishedFrom, finishedTo), dryRun, confirm)
			.result();
	}

	QueueEndpointActions.BulkApplied bulk(String action, QueueEndpointActions.BulkFilter filter,
			@Nullable Boolean dryRun, @Nullable Boolean confirm) {
		checkFilter(filter.type(), filter.errorCode(), filter.key());
		return this.actions.bulk(action, filter, Boolean.TRUE.equals(dryRun), Boolean.TRUE.equals(confirm));
	}

	/**
	 * The answer of a read with a selector; see {@link #jobs}.
	 * @param values what the caller may see of values
	 * @throws InvalidEndpointRequestException for a selector, status or page size that is
	 * not valid
	 */
	@Nullable Object read(String idOrStatus, @Nullable String type, @Nullable String errorCode, @Nullable String key,
			@Nullable Long before, @Nullable Integer size, @Nullable String q, @Nullable Integer window,
			ValuePolicy values) {
		checkFilter(type, errorCode, key);
		Long id = parseId(idOrStatus);
		if (id != null) {
			return this.views.job(id, this.settings.payloadPreview(), values)
				.map((detail) -> JobDetailView.of(detail, this.clock.instant()))
				.orElse(null);
		}
		if (idOrStatus.equalsIgnoreCase("schedules")) {
			return new ScheduleList(this.schedules.schedules());
		}
		if (idOrStatus.equalsIgnoreCase("paused")) {
			return new PausedList(this.queue.pausedTypes());
		}
		if (idOrStatus.equalsIgnoreCase("search")) {
			return search(q, window, size, values);
		}
		JobStatus status = parseStatus(idOrStatus);
		int pageSize = (size != null) ? size : DEFAULT_PAGE_SIZE;
		if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
			throw new InvalidEndpointRequestException("Page size " + pageSize + " is out of range: use 1 to "
					+ MAX_PAGE_SIZE + " and page on with ?before=<nextBefore>", "Invalid page size");
		}
		JobPage page = this.views
			.jobs(new JobQuery(status, blankToNull(type), blankToNull(errorCode), blankToNull(key), before, pageSize));
		Instant now = this.clock.instant();
		return new JobListView(page.jobs().stream().map((job) -> JobView.of(job, now)).toList(), page.nextBefore());
	}

	/**
	 * Refuses a filter no job can match because it is longer than enqueue takes, without
	 * repeating it (a page of megabytes would come back).
	 */
	private static void checkFilter(@Nullable String type, @Nullable String errorCode, @Nullable String key) {
		String problem = EnqueueLimits.filterProblem(type, errorCode, key);
		if (problem != null) {
			throw new InvalidEndpointRequestException(problem, "Filter too long");
		}
	}

	private SearchView search(@Nullable String q, @Nullable Integer window, @Nullable Integer size,
			ValuePolicy values) {
		if (q == null || q.isBlank()) {
			throw new InvalidEndpointRequestException(
					"A search needs ?q=<text>: a job id, an error code, a key, a dedup key, "
							+ "or text in error details and payloads",
					"Nothing to search for");
		}
		JobSearch search;
		try {
			search = new JobSearch(q, (window != null) ? window : JobSearch.DEFAULT_WINDOW,
					(size != null) ? size : JobSearch.DEFAULT_LIMIT);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid search");
		}
		SearchResult result = this.views.search(search, values);
		Instant now = this.clock.instant();
		return new SearchView(search.text(),
				result.matches()
					.stream()
					.map((match) -> new SearchMatchView(match.matchedOn(), JobView.of(match.job(), now)))
					.toList(),
				result.scanned(), result.scannedFrom(), result.valuesSearched());
	}

	/**
	 * Applies a write; see {@link #act}.
	 * @throws InvalidEndpointRequestException for an unknown action, or a target that
	 * does not fit it
	 */
	QueueEndpointActions.Applied apply(String target, String action) {
		return this.actions.apply(target, action);
	}

	static Long parseId(String value) {
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
				+ "/actuator/jobqueue/schedules, /actuator/jobqueue/paused or /actuator/jobqueue/keys/{type}",
				"Unknown job id or status");
	}

	private static String blankToNull(String value) {
		return (value == null || value.isBlank()) ? null : value;
	}

	/**
	 * The keys of a type.
	 *
	 * @param type the job type
	 * @param limits its flow control, as this process knows it, or {@code null} if it has
	 * none here
	 * @param at when due jobs were counted
	 * @param keys how many keys have pending, running or failed jobs
	 * @param blockedKeys how many of them a failed job blocks
	 * @param busiest the keys with the largest backlog (pending jobs), then the most
	 * running ones
	 * @param blocked the blocked keys by backlog, each with its first failed job
	 * ({@code failedJobId}): retrying or deleting it releases the key
	 */
	public record KeysView(String type, QueueReport.@Nullable Limits limits, Instant at, long keys, long blockedKeys,
			List<KeyState> busiest, List<KeyState> blocked) {

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
	 * What a search found, newest first.
	 *
	 * @param query the text searched for
	 * @param matches the jobs found, with where the text matched
	 * @param scanned how many of the most recent jobs were read for text
	 * @param scannedFrom the smallest id read for text; older jobs are found only by id,
	 * error code, key or an unfinished job's dedup key
	 * @param valuesSearched whether dedup keys, error details and payloads were searched
	 * (only for a caller who may see values)
	 */
	public record SearchView(String query, List<SearchMatchView> matches, long scanned, @Nullable Long scannedFrom,
			boolean valuesSearched) {

	}

	/**
	 * A job a search found.
	 *
	 * @param matchedOn {@code id}, {@code error-code}, {@code dedup-key},
	 * {@code error-detail} or {@code payload}
	 * @param job the job
	 */
	public record SearchMatchView(String matchedOn, JobView job) {

	}

	/**
	 * What a bulk action did, or on a dry run would do.
	 *
	 * @param action {@code retry}, {@code cancel} or {@code delete}
	 * @param filter the filter's fields, as given
	 * @param dryRun whether it only counted
	 * @param matched jobs the action applied to when it started
	 * @param applied jobs changed
	 * @param skipped matched jobs left alone (changed meanwhile, or a dedup key taken)
	 * @param batches transactions taken
	 * @param message why nothing was done, or {@code null}
	 */
	public record BulkView(String action, String filter, boolean dryRun, long matched, long applied, long skipped,
			int batches, @Nullable String message) {

		static BulkView of(BulkResult result, @Nullable String message) {
			return new BulkView(result.action().word(), result.filter().toString(), result.dryRun(), result.matched(),
					result.applied(), result.skipped(), result.batches(), message);
		}

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

}
