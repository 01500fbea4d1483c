package dev.jobqueue.views;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.store.QueueInsights;

/**
 * What the people who run a queue read of it: its state at one instant, its jobs by
 * filter, page and search, one job in full, the keys of a type, the runs that ended per
 * time slot. Every surface (the actuator endpoint, the dashboard, the command line, the
 * meters) reads through it; what a caller may see of a job's values is decided by the
 * {@link ValuePolicy} it passes, and the views come back with those values already shown
 * or hidden. Never reads a clock: the caller says which instant it asks about. Each
 * method is a few indexed queries, cheap enough for a page view or a meter refresh.
 * Writes (retry, cancel, pause, bulk actions) are {@link dev.jobqueue.JobQueue}'s.
 */
public final class QueueViews {

	private final QueueInsights insights;

	/**
	 * Views read from a store's insights.
	 * @param insights the store's read side
	 */
	public QueueViews(QueueInsights insights) {
		this.insights = Objects.requireNonNull(insights, "'insights' must not be null");
	}

	/**
	 * The whole picture at {@code now}, computed in one go; see {@link QueueSnapshot}.
	 */
	public QueueSnapshot snapshot(Instant now, SnapshotSettings settings) {
		return FromStore.snapshot(this.insights.snapshot(now, FromStore.settings(settings)));
	}

	/**
	 * The oldest pending job due now of a type that is not paused and that a live worker
	 * handles.
	 * @param workersAliveAfter a worker whose last heartbeat is before this no longer
	 * counts as handling its types
	 */
	public Optional<JobSummary> oldestClaimable(Instant now, Instant workersAliveAfter) {
		return this.insights.oldestClaimable(now, workersAliveAfter).map(FromStore::jobOf);
	}

	/**
	 * Running jobs whose last heartbeat is before {@code heartbeatBefore}, oldest first.
	 */
	public StuckJobs stuck(Instant heartbeatBefore, int limit) {
		return FromStore.stuck(this.insights.stuck(heartbeatBefore, limit));
	}

	/**
	 * Jobs still held until their enqueuer's commit that were enqueued before
	 * {@code enqueuedBefore}: most likely their process died between the commit and the
	 * release.
	 */
	public HeldJobs held(Instant enqueuedBefore, int limit) {
		return FromStore.held(this.insights.held(enqueuedBefore, limit));
	}

	/**
	 * One job with its attempts, events, progress, steps, chain and dependencies.
	 * @param id the job's id
	 * @param previewChars characters of its payload and results read when values are
	 * shown; 0 reads their length only
	 * @param values what the caller may see of its values
	 * @return the job, or empty when there is none with that id
	 */
	public Optional<JobDetail> job(long id, int previewChars, ValuePolicy values) {
		return this.insights.job(id, values.previewChars(previewChars)).map(FromStore::detail).map(values::detail);
	}

	/** The latest progress the given jobs reported, for those that did. */
	public Map<Long, JobProgress> progress(Collection<Long> jobIds, ValuePolicy values) {
		Map<Long, JobProgress> progress = new LinkedHashMap<>();
		this.insights.progress(jobIds)
			.forEach((id, reported) -> progress.put(id, values.progress(FromStore.progress(reported))));
		return progress;
	}

	/** Jobs matching a filter, newest first, one page. */
	public JobPage jobs(JobQuery query) {
		return FromStore.page(this.insights.jobs(new QueueInsights.JobQuery(query.status(), query.type(),
				query.errorCode(), query.key(), query.before(), query.limit())));
	}

	/**
	 * Jobs found by a search (see {@link JobSearch}); dedup keys, error details and
	 * payloads are searched only when {@code values} shows them.
	 */
	public SearchResult search(JobSearch search, ValuePolicy values) {
		return FromStore.search(this.insights
			.search(new QueueInsights.JobSearch(search.text(), values.shown(), search.window(), search.limit())));
	}

	/**
	 * How many runs ended per time slot, every slot from the one holding {@code from} to
	 * the one before {@code to}, empty ones included.
	 * @param slot length of one slot, a whole number of minutes
	 */
	public List<Outcomes> outcomes(Instant from, Instant to, Duration slot) {
		return this.insights.outcomes(from, to, slot).stream().map(FromStore::outcomes).toList();
	}

	/**
	 * Per type with limits, its due jobs held back by them now, as
	 * {@link QueueSnapshot#flow()} counts them.
	 */
	public Map<String, QueueSnapshot.FlowState> flow(Instant now, Map<String, FlowControl> flowControls) {
		return FromStore.flows(this.insights.flow(now, flowControls));
	}

	/** The keys of one type: the busiest by backlog and the blocked ones. */
	public TypeKeys keys(KeyQuery query) {
		return FromStore.keys(this.insights
			.keys(new QueueInsights.KeyQuery(query.type(), query.flowControl(), query.now(), query.limit())));
	}

	/**
	 * Checks, for a health probe, that the database can be read and is open for writing,
	 * without writing.
	 * @throws dev.jobqueue.JobQueueException with the reason when it cannot
	 */
	public void checkAvailable() {
		this.insights.checkAvailable();
	}

}
