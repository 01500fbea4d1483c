package dev.jobqueue.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.views.JobSummary;
import dev.jobqueue.views.QueueViews;
import dev.jobqueue.views.StuckJobs;

/**
 * Health of the job queue, as {@code jobqueue} in {@code /actuator/health}.
 * <ul>
 * <li>{@code DOWN} when the database cannot be read, or cannot be written: the connection
 * or the file refuses writes, or this process's worker failed its last
 * {@value #WORKER_FAILURES_DOWN} rounds in a row (each round writes, so a full disk or a
 * damaged file shows there), with the reason.</li>
 * <li>The degraded status ({@code jobqueue.observability.degraded-status},
 * {@code DEGRADED} by default) when running jobs have had no heartbeat for longer than
 * {@code jobqueue.observability.stuck-after}, or the oldest claimable job has waited
 * longer than {@code jobqueue.observability.max-queue-age}, or pending jobs are of a type
 * that no live worker on the database handles; the details say which. Boot's default
 * status order does not know {@code DEGRADED}, so it leaves the application's aggregate
 * status {@code UP} (HTTP 200) while this component shows the problem.</li>
 * <li>{@code UP} otherwise.</li>
 * </ul>
 * A probe never writes and never takes SQLite's write lock: each check is one indexed
 * read, which in WAL mode does not wait for another connection's write, so the indicator
 * stays fast for frequent probes.
 */
public class QueueHealthIndicator extends AbstractHealthIndicator {

	private static final int STUCK_LISTED = 5;

	/**
	 * Three times the worker's default lease, as jobqueue.observability.worker-dead-after
	 * when it is not set.
	 */
	private static final Duration DEFAULT_WORKER_DEAD_AFTER = Duration.ofMinutes(3);

	/**
	 * Failed worker rounds in a row that make the queue DOWN. One failure can be a lock
	 * held longer than the busy timeout; three in a row (with the worker's growing
	 * backoff between them) is a database that stopped taking writes.
	 */
	static final int WORKER_FAILURES_DOWN = 3;

	/** What the reasons say instead of a hidden location. */
	static final String HIDDEN_LOCATION = "(location hidden: management.endpoint.jobqueue.show-values)";

	private final QueueViews views;

	private final Clock clock;

	private final Duration stuckAfter;

	private final Duration maxQueueAge;

	private final Status degradedStatus;

	private final Supplier<JobWorker> worker;

	private final Duration workerDeadAfter;

	private volatile Supplier<Map<String, Long>> unhandledJobs = Map::of;

	private volatile Supplier<List<String>> warnings = List::of;

	private String hiddenLocation;

	/**
	 * @param stuckAfter running jobs without heartbeat for longer are stuck
	 * @param maxQueueAge the oldest claimable job may wait this long; {@code null} for no
	 * limit
	 * @param degradedStatus reported when jobs are stuck or the queue is too old
	 */
	public QueueHealthIndicator(QueueViews views, Clock clock, Duration stuckAfter, Duration maxQueueAge,
			Status degradedStatus) {
		this(views, clock, stuckAfter, maxQueueAge, degradedStatus, () -> null);
	}

	/**
	 * @param stuckAfter running jobs without heartbeat for longer are stuck
	 * @param maxQueueAge the oldest claimable job may wait this long; {@code null} for no
	 * limit
	 * @param degradedStatus reported when jobs are stuck or the queue is too old
	 * @param worker this process's running worker, or {@code null} when it runs none
	 */
	public QueueHealthIndicator(QueueViews views, Clock clock, Duration stuckAfter, Duration maxQueueAge,
			Status degradedStatus, Supplier<JobWorker> worker) {
		this(views, clock, stuckAfter, maxQueueAge, degradedStatus, worker, DEFAULT_WORKER_DEAD_AFTER);
	}

	/**
	 * @param stuckAfter running jobs without heartbeat for longer are stuck
	 * @param maxQueueAge the oldest claimable job may wait this long; {@code null} for no
	 * limit
	 * @param degradedStatus reported when jobs are stuck or the queue is too old
	 * @param worker this process's running worker, or {@code null} when it runs none
	 * @param workerDeadAfter a worker silent for longer no longer handles its types:
	 * their jobs are held, not late, and do not count against {@code maxQueueAge} (nor do
	 * the jobs of paused types)
	 */
	public QueueHealthIndicator(QueueViews views, Clock clock, Duration stuckAfter, Duration maxQueueAge,
			Status degradedStatus, Supplier<JobWorker> worker, Duration workerDeadAfter) {
		super("Job queue health check failed");
		this.views = Objects.requireNonNull(views, "'views' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		this.stuckAfter = Objects.requireNonNull(stuckAfter, "'stuckAfter' must not be null");
		this.maxQueueAge = maxQueueAge;
		this.degradedStatus = Objects.requireNonNull(degradedStatus, "'degradedStatus' must not be null");
		this.worker = Objects.requireNonNull(worker, "'worker' must not be null");
		this.workerDeadAfter = Objects.requireNonNull(workerDeadAfter, "'workerDeadAfter' must not be null");
	}

	/**
	 * Where the pending jobs of types that no live worker handles come from (per type);
	 * while there are some, the status is the degraded one. None by default.
	 */
	public void setUnhandledJobs(Supplier<Map<String, Long>> unhandledJobs) {
		this.unhandledJobs = (unhandledJobs != null) ? unhandledJobs : Map::of;
	}

	/**
	 * Where warnings come from that change no status but that an operator should act on
	 * (a database left to grow); they go to the details under {@code warnings}.
	 */
	public void setWarnings(Supplier<List<String>> warnings) {
		this.warnings = (warnings != null) ? warnings : List::of;
	}

	/**
	 * Leaves the database's location (a file's path, a server's address) out of the
	 * reasons this indicator gives, for an application whose
	 * {@code management.endpoint.jobqueue.show-values} is not {@code always}: health is
	 * often public, and its reasons do not depend on who asks.
	 * @param location the location as the store's messages write it
	 * @return this indicator
	 */
	public QueueHealthIndicator hideLocation(String location) {
		this.hiddenLocation = (location != null && !location.isBlank()) ? location : null;
		return this;
	}

	private String reason(String text) {
		String reason = String.valueOf(text);
		return (this.hiddenLocation != null) ? reason.replace(this.hiddenLocation, HIDDEN_LOCATION) : reason;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		JobWorker running = this.worker.get();
		if (running != null && running.loopFailuresInARow() >= WORKER_FAILURES_DOWN) {
			Throwable failure = running.lastLoopFailure();
			builder.down()
				.withDetail("reason",
						"The worker's last " + running.loopFailuresInARow() + " rounds could not use "
								+ "the queue database: "
								+ reason((failure != null) ? failure.getMessage() : "no error recorded"))
				.withDetail("workerId", running.workerId());
			return;
		}
		try {
			this.views.checkAvailable();
		}
		catch (RuntimeException ex) {
			builder.down().withDetail("reason", reason(ex.getMessage()));
			return;
		}
		Instant now = this.clock.instant();
		List<String> problems = new ArrayList<>();
		StuckJobs stuck = this.views.stuck(now.minus(this.stuckAfter), STUCK_LISTED);
		builder.withDetail("stuckAfter", this.stuckAfter.toString()).withDetail("stuck", stuck.count());
		if (stuck.count() > 0) {
			problems.add(stuck.count() + " running job(s) without heartbeat for more than " + this.stuckAfter);
			builder.withDetail("stuckJobs", stuck.oldest().stream().map((job) -> describeStuck(job, now)).toList());
		}
		Optional<JobSummary> oldest = this.views.oldestClaimable(now, now.minus(this.workerDeadAfter));
		Duration age = oldest.map((job) -> Duration.between(job.runAt(), now))
			.filter((d) -> !d.isNegative())
			.orElse(Duration.ZERO);
		builder.withDetail("oldestClaimableAge", age.toString());
		if (this.maxQueueAge != null) {
			builder.withDetail("maxQueueAge", this.maxQueueAge.toString());
			if (age.compareTo(this.maxQueueAge) > 0) {
				JobSummary job = oldest.get();
				problems.add("the oldest claimable job (" + job.id() + ", " + job.type() + ") has waited " + age
						+ ", more than " + this.maxQueueAge);
			}
		}
		Map<String, Long> unhandled = this.unhandledJobs.get();
		if (unhandled != null && !unhandled.isEmpty()) {
			long jobs = unhandled.values().stream().mapToLong(Long::longValue).sum();
			builder.withDetail("unhandled", unhandled);
			problems.add(jobs + " pending job(s) of type(s) " + unhandled.keySet() + " that no live worker handles: "
					+ "start a process with their @JobHandler, or check the type names they were enqueued with");
		}
		List<String> warnings = this.warnings.get();
		if (warnings != null && !warnings.isEmpty()) {
			builder.withDetail("warnings", warnings);
		}
		if (problems.isEmpty()) {
			builder.up();
		}
		else {
			builder.status(this.degradedStatus).withDetail("problems", problems);
		}
	}

	private static String describeStuck(JobSummary job, Instant now) {
		Duration silent = (job.heartbeatAt() != null) ? Duration.between(job.heartbeatAt(), now) : null;
		return "job " + job.id() + " (" + job.type() + ") on worker " + job.workerId() + ", last heartbeat "
				+ job.heartbeatAt() + ((silent != null) ? " (" + silent + " ago)" : "");
	}

}
