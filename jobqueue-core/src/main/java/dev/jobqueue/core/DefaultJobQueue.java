package dev.jobqueue.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.BulkRequest;
import dev.jobqueue.BulkResult;
import dev.jobqueue.FanOut;
import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.PausedType;
import dev.jobqueue.RetryOptions;
import dev.jobqueue.core.store.JobAdminStore;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.core.store.TraceHeaders;

/**
 * Validates requests, turns payloads into JSON and hands them to the store. Every check
 * happens before the database is touched, so a bad request fails whole and writes
 * nothing.
 */
public final class DefaultJobQueue implements JobQueue {

	private static final Logger logger = LoggerFactory.getLogger(DefaultJobQueue.class);

	/**
	 * Due times further out than this are surely a mistake (a delay in the wrong unit,
	 * say).
	 */
	static final Duration MAX_DELAY = NewJobs.MAX_DELAY;

	private final JobStore store;

	private final JobAdminStore admin;

	private final PayloadCodec codec;

	private volatile UnhandledTypeWarnings unhandledTypeWarnings;

	private final HandlerRegistry handlers;

	private final Clock clock;

	private final EnqueueLimits limits;

	private final TraceContextSource traceContext;

	private final NewJobs newJobs;

	private volatile QueueSignals signals = QueueSignals.NONE;

	public DefaultJobQueue(JobStore store, JobAdminStore admin, PayloadCodec codec, HandlerRegistry handlers,
			Clock clock, EnqueueLimits limits, TraceContextSource traceContext) {
		this.store = Objects.requireNonNull(store, "'store' must not be null");
		this.admin = Objects.requireNonNull(admin, "'admin' must not be null");
		this.codec = Objects.requireNonNull(codec, "'codec' must not be null");
		this.handlers = Objects.requireNonNull(handlers, "'handlers' must not be null");
		this.clock = Objects.requireNonNull(clock, "'clock' must not be null");
		this.limits = Objects.requireNonNull(limits, "'limits' must not be null");
		this.traceContext = (traceContext != null) ? traceContext : Map::of;
		this.newJobs = new NewJobs(codec, handlers, limits);
	}

	/** Lets the worker of this process hear of new jobs and cancellations at once. */
	public void setSignals(QueueSignals signals) {
		this.signals = (signals != null) ? signals : QueueSignals.NONE;
	}

	/**
	 * Warn of jobs enqueued for types no process handles, or {@code null} not to.
	 */
	public void setUnhandledTypeWarnings(UnhandledTypeWarnings warnings) {
		this.unhandledTypeWarnings = warnings;
	}

	@Override
	public long enqueue(JobRequest request) {
		return enqueueAll(List.of(Objects.requireNonNull(request, "'request' must not be null"))).get(0);
	}

	@Override
	public List<Long> enqueueAll(List<JobRequest> requests) {
		Objects.requireNonNull(requests, "'requests' must not be null");
		if (requests.isEmpty()) {
			return List.of();
		}
		Instant now = this.clock.instant();
		String trace = currentTraceContext();
		List<NewJob> jobs = new ArrayList<>(requests.size());
		for (JobRequest request : requests) {
			jobs.add(this.newJobs.validate(request, now, trace));
		}
		QueueSignals target = this.signals;
		List<Long> ids = this.store.enqueue(jobs, now, target::jobsEnqueued);
		warnOfUnhandledTypes(requests);
		return ids;
	}

	private void warnOfUnhandledTypes(List<JobRequest> requests) {
		UnhandledTypeWarnings warnings = this.unhandledTypeWarnings;
		if (warnings != null) {
			for (JobRequest request : requests) {
				warnings.enqueued(request.type());
			}
		}
	}

	@Override
	public FanOut enqueueFanOut(List<JobRequest> children, JobRequest join) {
		Objects.requireNonNull(children, "'children' must not be null");
		if (join == null) {
			throw new JobQueueException(
					"The join of a fan-out is null: pass the JobRequest that runs once every " + "child finished");
		}
		Instant now = this.clock.instant();
		List<NewJob> jobs = this.newJobs.fanOut(children, join, now, currentTraceContext(), 0);
		QueueSignals target = this.signals;
		List<Long> ids = this.store.enqueue(jobs, now, target::jobsEnqueued);
		List<JobRequest> requests = new ArrayList<>(children);
		requests.add(join);
		warnOfUnhandledTypes(requests);
		return new FanOut(ids.get(0), ids.subList(0, children.size()), ids.get(children.size()));
	}

	private String currentTraceContext() {
		try {
			return TraceHeaders.encode(this.traceContext.currentTraceHeaders());
		}
		catch (RuntimeException ex) {
			// Telemetry must never cost a caller its job.
			logger.warn("Could not read the current trace context; enqueuing without it: {}", ex.toString());
			return null;
		}
	}

	@Override
	public boolean cancel(long id) {
		QueueSignals target = this.signals;
		return this.admin.cancel(id, this.clock.instant(), () -> target.cancelRequested(id));
	}

	@Override
	public int cancelChain(long chainId) {
		List<Long> steps = this.admin.cancelChain(chainId, this.clock.instant());
		// Running steps stop at once in this process; other processes learn it with
		// their next lease renewal.
		QueueSignals target = this.signals;
		steps.forEach(target::cancelRequested);
		return steps.size();
	}

	@Override
	public List<Job> findChain(long chainId) {
		return this.admin.findChain(chainId);
	}

	@Override
	public boolean retry(long id, RetryOptions options) {
		Objects.requireNonNull(options, "'options' must not be null");
		QueueSignals target = this.signals;
		return this.admin.retry(id, this.clock.instant(), options.isForgetSteps(), target::jobsEnqueued);
	}

	@Override
	public Optional<Job> find(long id) {
		return this.admin.find(id);
	}

	@Override
	public <T> Optional<T> result(long id, Class<T> type) {
		Objects.requireNonNull(type, "'type' must not be null");
		Optional<String> json = this.admin.find(id).map(Job::result);
		if (json.isEmpty()) {
			return Optional.empty();
		}
		try {
			return Optional.ofNullable(type.cast(this.codec.fromJson(json.get(), type)));
		}
		catch (IllegalArgumentException ex) {
			throw new JobQueueException("The result of job " + id + " does not map to " + type.getName() + ": "
					+ ex.getMessage() + ". Read it as the type its handler returns, or as String for its JSON text "
					+ "(Job.result()).", ex);
		}
	}

	@Override
	public boolean pause(String type) {
		boolean paused = this.admin.pause(requireType(type, "pause"), "api", this.clock.instant());
		if (paused) {
			logger.info("Job type '{}' paused: its jobs are not claimed until it is resumed", type);
		}
		return paused;
	}

	@Override
	public boolean resume(String type) {
		QueueSignals target = this.signals;
		boolean resumed = this.admin.resume(requireType(type, "resume"), target::jobsEnqueued);
		if (resumed) {
			logger.info("Job type '{}' resumed", type);
		}
		return resumed;
	}

	@Override
	public List<PausedType> pausedTypes() {
		return this.admin.pausedTypes();
	}

	@Override
	public BulkResult bulk(BulkRequest request) {
		Objects.requireNonNull(request, "'request' must not be null");
		BulkResult result = new BulkActions(this.admin, this.clock).run(request, this.signals);
		if (!result.dryRun() && result.applied() > 0) {
			logger.info("Bulk {} of {}: {} job(s) changed, {} skipped, in {} batch(es)", request.action().word(),
					request.filter(), result.applied(), result.skipped(), result.batches());
		}
		return result;
	}

	private static String requireType(String type, String action) {
		String problem = EnqueueLimits.typeProblem(type);
		if (problem != null) {
			throw new JobQueueException("Cannot " + action + ": " + problem);
		}
		return type;
	}

}
