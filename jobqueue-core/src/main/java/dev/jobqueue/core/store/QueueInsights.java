package dev.jobqueue.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.FlowControl;

/**
 * The read side of a queue for the people who run it: what is in it, what is late, what
 * fails and why. Like {@link JobStore} it never reads a clock. Implementations answer
 * each method with a few indexed queries, so calling them on a schedule or per HTTP
 * request stays cheap however many finished jobs are kept.
 */
public interface QueueInsights {

	/** The whole picture, computed in one go; see {@link QueueSnapshot}. */
	QueueSnapshot snapshot(Instant now, SnapshotSettings settings);

	/**
	 * The oldest pending job that is due now (not scheduled for later, not waiting out a
	 * backoff) of a type that is not paused and that a live worker handles: a paused type
	 * or one no worker handles is not late, it is held (see
	 * {@link QueueSnapshot#unhandled()} and the paused types).
	 * @param workersAliveAfter a worker whose last heartbeat is before this no longer
	 * counts as handling its types
	 */
	Optional<JobSummary> oldestClaimable(Instant now, Instant workersAliveAfter);

	/**
	 * Running jobs whose last heartbeat is before {@code heartbeatBefore}, oldest
	 * heartbeat first.
	 */
	StuckJobs stuck(Instant heartbeatBefore, int limit);

	/**
	 * Jobs still held until their enqueuer's commit ({@code jobqueue.enqueue.visibility
	 * = after-commit}) that were enqueued before {@code enqueuedBefore}: a transaction
	 * lasts far less, so their process most likely died between the commit and the
	 * release. Not lost, not run: an operator releases or deletes them. Stores that never
	 * hold jobs find none.
	 */
	default HeldJobs held(Instant enqueuedBefore, int limit) {
		return new HeldJobs(0, List.of());
	}

	/** One job with its attempts and event timeline. */
	Optional<JobDetail> job(long id, int payloadPreviewChars);

	/**
	 * The latest progress the given jobs reported, for those that did. Stores that do not
	 * keep progress answer an empty map.
	 */
	default Map<Long, JobProgress> progress(Collection<Long> jobIds) {
		return Map.of();
	}

	/** Jobs matching a filter, newest first. */
	JobPage jobs(JobQuery query);

	/**
	 * Jobs found by a search: see {@link JobSearch} for what is looked at and what it
	 * costs.
	 */
	SearchResult search(JobSearch search);

	/**
	 * How many runs ended per time slot, from the per-minute counts the store writes with
	 * the outcomes (so they survive restarts and agree across processes), kept as long as
	 * retention keeps finished jobs, and at least a day. Whether a failed run counts as
	 * failed for good or retried is decided when it ends.
	 * @param from start of the first slot (rounded down to a multiple of {@code slot}
	 * since the epoch)
	 * @param to end of the period (exclusive)
	 * @param slot length of one slot, a whole number of minutes
	 * @return every slot from the one holding {@code from} to the one before {@code to},
	 * empty ones included
	 * @throws IllegalArgumentException for a slot that is not a whole number of minutes
	 */
	List<Outcomes> outcomes(Instant from, Instant to, Duration slot);

	/**
	 * Per type with limits, its due jobs held back by them now, as
	 * {@link QueueSnapshot#flow()} counts them, without the rest of a snapshot. Stores
	 * without flow control answer an empty map.
	 */
	default Map<String, QueueSnapshot.FlowState> flow(Instant now, Map<String, FlowControl> flowControls) {
		return Map.of();
	}

	/**
	 * The keys of one type, for an operator looking for the key that holds a backlog: the
	 * busiest by backlog and, for an ordered type that blocks on failure, the blocked
	 * ones with the failed job that blocks each. Read from the index of keyed jobs: its
	 * cost grows with the type's pending, running and failed jobs with a key, not with
	 * finished ones.
	 */
	TypeKeys keys(KeyQuery query);

	/**
	 * Checks, for a health probe, that the database can be read and is open for writing,
	 * without taking a write lock or writing: one read, and whether the connection or the
	 * file refuses writes. A writer holding the lock does not make it wait. Failures that
	 * show only on a real write (a full disk) are the worker's to report, from its own
	 * writes.
	 * @throws dev.jobqueue.JobQueueException with the reason when the database cannot be
	 * read or written
	 */
	void checkAvailable();

	/**
	 * What a snapshot looks at.
	 *
	 * @param stuckAfter a running job whose last heartbeat is older than this is stuck
	 * @param topErrors error codes listed by name; the rest are summed
	 * @param workerDeadAfter a worker whose last heartbeat is older than this no longer
	 * counts as handling its types
	 * @param jobsListed how many jobs the lists of oldest running and stuck jobs show
	 * @param flowControls the flow control of each type whose held jobs the snapshot
	 * counts ({@link QueueSnapshot#flow()}): the types this process handles with limits.
	 * Only these types cost the snapshot more than its other statements.
	 */
	record SnapshotSettings(Duration stuckAfter, int topErrors, Duration workerDeadAfter, int jobsListed,
			Map<String, FlowControl> flowControls) {

		public SnapshotSettings {
			Objects.requireNonNull(stuckAfter, "'stuckAfter' must not be null");
			Objects.requireNonNull(workerDeadAfter, "'workerDeadAfter' must not be null");
			if (topErrors < 1 || jobsListed < 1) {
				throw new IllegalArgumentException("topErrors and jobsListed must be at least 1");
			}
			Map<String, FlowControl> limited = new TreeMap<>();
			if (flowControls != null) {
				flowControls.forEach((type, flow) -> {
					if (flow != null && flow.limits()) {
						limited.put(type, flow);
					}
				});
			}
			flowControls = Collections.unmodifiableMap(limited);
		}

		/** Settings that count no type's held jobs. */
		public SnapshotSettings(Duration stuckAfter, int topErrors, Duration workerDeadAfter, int jobsListed) {
			this(stuckAfter, topErrors, workerDeadAfter, jobsListed, Map.of());
		}

		/**
		 * These settings counting the held jobs of the given types (those without limits
		 * are left out).
		 */
		public SnapshotSettings withFlowControls(Map<String, FlowControl> flowControls) {
			return new SnapshotSettings(this.stuckAfter, this.topErrors, this.workerDeadAfter, this.jobsListed,
					flowControls);
		}

	}

	/**
	 * A job in a list: its state without payload or result.
	 *
	 * @param id the job's id
	 * @param type the job type
	 * @param status its status
	 * @param priority higher runs first
	 * @param attempts attempts used
	 * @param maxAttempts attempts it may use
	 * @param createdAt when it was enqueued
	 * @param runAt when it is (or was) due; for a retry, the end of its backoff
	 * @param startedAt claim time of its latest run, or {@code null}
	 * @param finishedAt when it reached a final status, or {@code null}
	 * @param workerId worker of its latest run, or {@code null}
	 * @param heartbeatAt latest proof of life of its running worker, or {@code null}
	 * @param errorCode code of its latest failure, or {@code null}
	 * @param key its key ({@link dev.jobqueue.JobRequest#key(String)}), or {@code null}
	 */
	record JobSummary(long id, String type, JobStatus status, int priority, int attempts, int maxAttempts,
			Instant createdAt, Instant runAt, Instant startedAt, Instant finishedAt, String workerId,
			Instant heartbeatAt, String errorCode, String key) {

		/** A job without a key. */
		public JobSummary(long id, String type, JobStatus status, int priority, int attempts, int maxAttempts,
				Instant createdAt, Instant runAt, Instant startedAt, Instant finishedAt, String workerId,
				Instant heartbeatAt, String errorCode) {
			this(id, type, status, priority, attempts, maxAttempts, createdAt, runAt, startedAt, finishedAt, workerId,
					heartbeatAt, errorCode, null);
		}

	}

	/**
	 * Stuck jobs.
	 *
	 * @param count how many there are
	 * @param oldest the ones with the oldest heartbeat, up to the limit asked for
	 */
	record StuckJobs(long count, List<JobSummary> oldest) {

	}

	/**
	 * Jobs held until a commit that, by their age, will not come.
	 *
	 * @param count how many there are
	 * @param oldest the first enqueued, up to the limit asked for
	 */
	record HeldJobs(long count, List<JobSummary> oldest) {

	}

	/**
	 * One job in full, payload and result shortened.
	 *
	 * @param job its state
	 * @param leaseUntil until when its running worker holds it, or {@code null}
	 * @param errorDetail summary of its latest failure, or {@code null}
	 * @param dedupKey its deduplication key, or {@code null}
	 * @param cancelRequested whether a cancel of the running job was asked for
	 * @param traceParent the W3C traceparent current at enqueue, or {@code null}
	 * @param payload its payload, shortened
	 * @param result its result, shortened, or {@code null}
	 * @param attempts every run, in order
	 * @param events its timeline, oldest first (the latest {@link #MAX_EVENTS} events)
	 * @param progress the latest progress its handler reported, or {@code null}
	 * @param links its chain and what it waits for; {@link JobLinks#NONE} for a job in no
	 * chain that waits for nothing and that nothing waits for
	 * @param steps its recorded durable steps, in the order they were recorded, results
	 * shortened
	 */
	record JobDetail(JobSummary job, Instant leaseUntil, String errorDetail, String dedupKey, boolean cancelRequested,
			String traceParent, Text payload, Text result, List<Attempt> attempts, List<Event> events,
			JobProgress progress, JobLinks links, List<Step> steps) {

		/** Most events returned for one job. */
		public static final int MAX_EVENTS = 200;

		public JobDetail {
			links = (links != null) ? links : JobLinks.NONE;
			steps = (steps != null) ? List.copyOf(steps) : List.of();
		}

		/** A job without durable steps. */
		public JobDetail(JobSummary job, Instant leaseUntil, String errorDetail, String dedupKey,
				boolean cancelRequested, String traceParent, Text payload, Text result, List<Attempt> attempts,
				List<Event> events, JobProgress progress, JobLinks links) {
			this(job, leaseUntil, errorDetail, dedupKey, cancelRequested, traceParent, payload, result, attempts,
					events, progress, links, List.of());
		}

		/** A job without links (see {@link JobLinks#NONE}). */
		public JobDetail(JobSummary job, Instant leaseUntil, String errorDetail, String dedupKey,
				boolean cancelRequested, String traceParent, Text payload, Text result, List<Attempt> attempts,
				List<Event> events, JobProgress progress) {
			this(job, leaseUntil, errorDetail, dedupKey, cancelRequested, traceParent, payload, result, attempts,
					events, progress, JobLinks.NONE);
		}

		/** This detail with its links. */
		public JobDetail withLinks(JobLinks links) {
			return new JobDetail(this.job, this.leaseUntil, this.errorDetail, this.dedupKey, this.cancelRequested,
					this.traceParent, this.payload, this.result, this.attempts, this.events, this.progress, links,
					this.steps);
		}

		/** A job whose store keeps no progress. */
		public JobDetail(JobSummary job, Instant leaseUntil, String errorDetail, String dedupKey,
				boolean cancelRequested, String traceParent, Text payload, Text result, List<Attempt> attempts,
				List<Event> events) {
			this(job, leaseUntil, errorDetail, dedupKey, cancelRequested, traceParent, payload, result, attempts,
					events, null);
		}

	}

	/**
	 * A job's place among other jobs: its chain, what it waits for, what waits for it.
	 * Lists hold at most {@link #MAX_LISTED} jobs each; the counts are exact.
	 *
	 * @param chainId the chain it is a step of (the first step's id), or {@code null}
	 * @param chainIndex its step in the chain, or {@code null}
	 * @param chainSteps the chain's steps by chain index then id (this job included);
	 * empty when not in a chain
	 * @param chainLength how many jobs the chain has
	 * @param unfinishedDependencies how many of the jobs it waits for are unfinished
	 * @param dependencyPolicy what it does when one of them fails, or {@code null} when
	 * it waits for nothing
	 * @param waitsFor the jobs it waits (or waited) for, by id
	 * @param waitsForCount how many jobs it waits (or waited) for
	 * @param waitedBy the jobs that wait (or waited) for it, by id
	 * @param waitedByCount how many jobs wait (or waited) for it
	 */
	record JobLinks(Long chainId, Integer chainIndex, List<JobSummary> chainSteps, long chainLength,
			int unfinishedDependencies, dev.jobqueue.DependencyPolicy dependencyPolicy, List<JobSummary> waitsFor,
			long waitsForCount, List<JobSummary> waitedBy, long waitedByCount) {

		/** Most jobs in each list. */
		public static final int MAX_LISTED = 100;

		/** No chain, no dependencies, no dependents. */
		public static final JobLinks NONE = new JobLinks(null, null, List.of(), 0, 0, null, List.of(), 0, List.of(), 0);

		public JobLinks {
			chainSteps = List.copyOf(chainSteps);
			waitsFor = List.copyOf(waitsFor);
			waitedBy = List.copyOf(waitedBy);
		}

	}

	/**
	 * A JSON text, maybe shortened.
	 *
	 * @param length its full length in characters
	 * @param preview its start ({@code null} when previews are off)
	 * @param truncated whether the preview is shorter than the text
	 */
	record Text(long length, String preview, boolean truncated) {

	}

	/**
	 * A durable step a job recorded ({@link dev.jobqueue.JobContext#step}).
	 *
	 * @param name its name
	 * @param result its result as JSON, shortened, or {@code null} for a step without one
	 * @param run the run that recorded it
	 * @param attempt the attempt that run counted as
	 * @param startedAt when the step began
	 * @param recordedAt when its result was recorded
	 */
	record Step(String name, Text result, int run, int attempt, Instant startedAt, Instant recordedAt) {

	}

	/**
	 * One run of a job.
	 *
	 * @param run the claim number
	 * @param attempt the attempt it counted as
	 * @param workerId the worker that ran it
	 * @param startedAt claim time
	 * @param finishedAt when its outcome was written, or {@code null} while it runs
	 * @param outcome SUCCEEDED, FAILED, SNOOZED, CANCELLED, HANDED_BACK or LEASE_EXPIRED;
	 * {@code null} while it runs
	 * @param errorCode its error code, or {@code null}
	 * @param errorDetail its error summary, or {@code null}
	 * @param errorTrace the failure's stack trace (bounded), or {@code null}
	 */
	record Attempt(int run, int attempt, String workerId, Instant startedAt, Instant finishedAt, String outcome,
			String errorCode, String errorDetail, String errorTrace) {

	}

	/**
	 * One entry of a job's timeline.
	 *
	 * @param at when it happened
	 * @param event the {@link JobEvent#name() name} of a {@link JobEvent}
	 * @param actor the worker, {@code api} or {@code recovery}
	 * @param detail a short note
	 */
	record Event(Instant at, String event, String actor, String detail) {

	}

	/**
	 * Runs that ended in one time slot.
	 *
	 * @param start the slot's start
	 * @param succeeded runs that succeeded
	 * @param failed runs that failed (or lost their lease) and left the job failed for
	 * good
	 * @param retried runs that failed (or lost their lease) and were followed by another
	 * run, or will be
	 */
	record Outcomes(Instant start, long succeeded, long failed, long retried) {

		/** All runs that ended in the slot. */
		public long total() {
			return this.succeeded + this.failed + this.retried;
		}

	}

	/**
	 * Which keys {@link #keys(KeyQuery)} reads.
	 *
	 * @param type the job type
	 * @param flowControl its flow control as this process knows it
	 * ({@link FlowControl#NONE} if it has none or the process does not handle the type):
	 * it says whether a failed job blocks its key
	 * @param now the instant due jobs are counted at
	 * @param limit how many keys each list holds, 1 to {@link #MAX_LIMIT}
	 */
	record KeyQuery(String type, FlowControl flowControl, Instant now, int limit) {

		/** Keys listed unless asked otherwise. */
		public static final int DEFAULT_LIMIT = 10;

		/** Most keys listed. */
		public static final int MAX_LIMIT = 100;

		public KeyQuery {
			Objects.requireNonNull(type, "'type' must not be null");
			Objects.requireNonNull(now, "'now' must not be null");
			flowControl = (flowControl != null) ? flowControl : FlowControl.NONE;
			if (limit < 1 || limit > MAX_LIMIT) {
				throw new IllegalArgumentException(
						"A key list of " + limit + " keys is out of range: use 1 to " + MAX_LIMIT);
			}
		}

	}

	/**
	 * One key of a type.
	 *
	 * @param key the key
	 * @param pending its pending jobs, due or not: its backlog
	 * @param due those of them due now
	 * @param running its running jobs
	 * @param failed its jobs that failed for good
	 * @param failedJobId the first (lowest id) of its failed jobs, or {@code null}
	 * @param blocked whether a failed job holds back its other jobs (an ordered type that
	 * blocks on failure): retrying or deleting {@code failedJobId}, and any other failed
	 * job of the key, releases it
	 */
	record KeyState(String key, long pending, long due, long running, long failed, Long failedJobId, boolean blocked) {

	}

	/**
	 * The keys of one type.
	 *
	 * @param type the job type
	 * @param flowControl its flow control, as asked with
	 * @param at the instant due jobs were counted at
	 * @param keys how many keys have a pending, running or failed job
	 * @param blockedKeys how many keys are blocked
	 * @param busiest the keys with the largest backlog (pending jobs), then the most
	 * running jobs, then by key, at most the limit asked for
	 * @param blocked the blocked keys by backlog, then by key, at most the limit asked
	 * for
	 */
	record TypeKeys(String type, FlowControl flowControl, Instant at, long keys, long blockedKeys,
			List<KeyState> busiest, List<KeyState> blocked) {

		public TypeKeys {
			busiest = List.copyOf(busiest);
			blocked = List.copyOf(blocked);
		}

	}

	/**
	 * A filter for {@link #jobs(JobQuery)}; {@code null} fields match everything.
	 *
	 * @param status jobs in this status
	 * @param type jobs of this type
	 * @param errorCode jobs whose latest failure has this code
	 * @param key jobs with this key, read from {@code jobs_key_idx}
	 * @param before only jobs with a smaller id (the {@link JobPage#nextBefore()} of the
	 * previous page)
	 * @param limit page size
	 */
	record JobQuery(JobStatus status, String type, String errorCode, String key, Long before, int limit) {

		/** A query of jobs with or without a key. */
		public JobQuery(JobStatus status, String type, String errorCode, Long before, int limit) {
			this(status, type, errorCode, null, before, limit);
		}

	}

	/**
	 * A page of jobs, newest first.
	 *
	 * @param jobs the jobs
	 * @param nextBefore pass as {@code before} for the next page; {@code null} on the
	 * last page
	 */
	record JobPage(List<JobSummary> jobs, Long nextBefore) {

	}

	/**
	 * A search for jobs by one text, as an operator types it into a search box.
	 * <ul>
	 * <li>A number is a job id: that job, found by primary key.</li>
	 * <li>The text is an error code: jobs whose latest failure has exactly that code,
	 * newest first, from {@code jobs_error_code_idx}.</li>
	 * <li>The text is a job's key: that key's jobs, newest first, from
	 * {@code jobs_key_idx} (a key is shown in every job list, so it is searched without
	 * {@code values} too).</li>
	 * <li>With {@code values}: the unfinished job holding the text as its dedup key, from
	 * the dedup index.</li>
	 * <li>Anywhere in the error code, and with {@code values} in the dedup key, error
	 * detail or payload, case-insensitively: only among the {@code window} most recent
	 * jobs, read backwards along the primary key. The cost is bounded by the window
	 * (their rows and payloads read), not by the table: a text search never scans a
	 * million-row table.</li>
	 * </ul>
	 * Without {@code values} (a caller who may not see payloads, results, error details
	 * and dedup keys), those are not searched, so they cannot be probed.
	 *
	 * @param text what to look for
	 * @param values whether dedup keys, error details and payloads are searched
	 * @param window how many of the most recent jobs a text search reads, 1 to
	 * {@link #MAX_WINDOW}
	 * @param limit most jobs found, 1 to {@link #MAX_LIMIT}
	 */
	record JobSearch(String text, boolean values, int window, int limit) {

		/** Jobs a text search reads unless asked otherwise. */
		public static final int DEFAULT_WINDOW = 10_000;

		/** Most jobs a text search reads. */
		public static final int MAX_WINDOW = 100_000;

		/** Jobs found unless asked otherwise. */
		public static final int DEFAULT_LIMIT = 20;

		/** Most jobs found. */
		public static final int MAX_LIMIT = 100;

		/** Longest text searched for. */
		public static final int MAX_TEXT = 200;

		public JobSearch {
			Objects.requireNonNull(text, "'text' must not be null");
			text = text.strip();
			if (text.isEmpty() || text.length() > MAX_TEXT) {
				throw new IllegalArgumentException("Search for 1 to " + MAX_TEXT + " characters, not " + text.length());
			}
			if (window < 1 || window > MAX_WINDOW) {
				throw new IllegalArgumentException("A search window of " + window + " jobs is out of range: use 1 to "
						+ MAX_WINDOW + " (the most recent jobs a text search reads)");
			}
			if (limit < 1 || limit > MAX_LIMIT) {
				throw new IllegalArgumentException(
						"A search limit of " + limit + " is out of range: use 1 to " + MAX_LIMIT);
			}
		}

		/** A search with the default window and limit. */
		public static JobSearch of(String text, boolean values) {
			return new JobSearch(text, values, DEFAULT_WINDOW, DEFAULT_LIMIT);
		}

	}

	/**
	 * A job a search found.
	 *
	 * @param job the job
	 * @param matchedOn where the text was found: {@code id}, {@code error-code},
	 * {@code key}, {@code dedup-key}, {@code error-detail} or {@code payload}
	 */
	record SearchMatch(JobSummary job, String matchedOn) {

	}

	/**
	 * What a search found, newest first.
	 *
	 * @param matches the jobs found, at most the limit asked for
	 * @param scanned how many of the most recent jobs the text search read
	 * @param scannedFrom the smallest id the text search read, {@code null} when it read
	 * none; older jobs are found only by id, error code, key or an unfinished job's dedup
	 * key
	 * @param valuesSearched whether dedup keys, error details and payloads were searched
	 */
	record SearchResult(List<SearchMatch> matches, long scanned, Long scannedFrom, boolean valuesSearched) {

		public SearchResult {
			matches = List.copyOf(matches);
		}

	}

}
