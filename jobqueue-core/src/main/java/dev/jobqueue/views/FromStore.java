package dev.jobqueue.views;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.jobqueue.core.store.QueueInsights;

/**
 * The store's read records turned into the views, and the views' questions into the
 * store's: the store SPI may change shape without the surfaces noticing.
 */
final class FromStore {

	private FromStore() {
	}

	static @Nullable JobSummary job(QueueInsights.@Nullable JobSummary job) {
		return (job != null) ? jobOf(job) : null;
	}

	static JobSummary jobOf(QueueInsights.JobSummary job) {
		return new JobSummary(job.id(), job.type(), job.status(), job.priority(), job.attempts(), job.maxAttempts(),
				job.createdAt(), job.runAt(), job.startedAt(), job.finishedAt(), job.workerId(), job.heartbeatAt(),
				job.errorCode(), job.key());
	}

	static List<JobSummary> jobs(List<QueueInsights.JobSummary> jobs) {
		return jobs.stream().map(FromStore::jobOf).toList();
	}

	static StuckJobs stuck(QueueInsights.StuckJobs stuck) {
		return new StuckJobs(stuck.count(), jobs(stuck.oldest()));
	}

	static HeldJobs held(QueueInsights.HeldJobs held) {
		return new HeldJobs(held.count(), jobs(held.oldest()));
	}

	static @Nullable Text text(QueueInsights.@Nullable Text text) {
		return (text != null) ? new Text(text.length(), text.preview(), text.truncated()) : null;
	}

	static @Nullable JobProgress progress(dev.jobqueue.core.store.@Nullable JobProgress progress) {
		return (progress != null)
				? new JobProgress(progress.done(), progress.total(), progress.message(), progress.at()) : null;
	}

	static JobLinks links(QueueInsights.JobLinks links) {
		if (links == QueueInsights.JobLinks.NONE) {
			return JobLinks.NONE;
		}
		return new JobLinks(links.chainId(), links.chainIndex(), jobs(links.chainSteps()), links.chainLength(),
				links.unfinishedDependencies(), links.dependencyPolicy(), jobs(links.waitsFor()), links.waitsForCount(),
				jobs(links.waitedBy()), links.waitedByCount());
	}

	static JobDetail detail(QueueInsights.JobDetail detail) {
		Text payload = text(detail.payload());
		return new JobDetail(jobOf(detail.job()), detail.leaseUntil(), detail.errorDetail(), detail.dedupKey(),
				detail.cancelRequested(), detail.traceParent(), (payload != null) ? payload : new Text(0, null, false),
				text(detail.result()),
				detail.attempts()
					.stream()
					.map((attempt) -> new Attempt(attempt.run(), attempt.attempt(), attempt.workerId(),
							attempt.startedAt(), attempt.finishedAt(), attempt.outcome(), attempt.errorCode(),
							attempt.errorDetail(), attempt.errorTrace()))
					.toList(),
				detail.events()
					.stream()
					.map((event) -> new Event(event.at(), event.event(), event.actor(), event.detail()))
					.toList(),
				progress(detail.progress()), links(detail.links()),
				detail.steps()
					.stream()
					.map((step) -> new Step(step.name(), text(step.result()), step.run(), step.attempt(),
							step.startedAt(), step.recordedAt()))
					.toList());
	}

	static JobPage page(QueueInsights.JobPage page) {
		return new JobPage(jobs(page.jobs()), page.nextBefore());
	}

	static SearchResult search(QueueInsights.SearchResult result) {
		return new SearchResult(result.matches()
			.stream()
			.map((match) -> new SearchMatch(jobOf(match.job()), match.matchedOn()))
			.toList(), result.scanned(), result.scannedFrom(), result.valuesSearched());
	}

	static Outcomes outcomes(QueueInsights.Outcomes outcomes) {
		return new Outcomes(outcomes.start(), outcomes.succeeded(), outcomes.failed(), outcomes.retried());
	}

	static KeyState key(QueueInsights.KeyState key) {
		return new KeyState(key.key(), key.pending(), key.due(), key.running(), key.failed(), key.failedJobId(),
				key.blocked());
	}

	static TypeKeys keys(QueueInsights.TypeKeys keys) {
		return new TypeKeys(keys.type(), keys.flowControl(), keys.at(), keys.keys(), keys.blockedKeys(),
				keys.busiest().stream().map(FromStore::key).toList(),
				keys.blocked().stream().map(FromStore::key).toList());
	}

	static QueueInsights.SnapshotSettings settings(SnapshotSettings settings) {
		return new QueueInsights.SnapshotSettings(settings.stuckAfter(), settings.topErrors(),
				settings.workerDeadAfter(), settings.jobsListed(), settings.flowControls());
	}

	static QueueSnapshot.FlowState flow(dev.jobqueue.core.store.QueueSnapshot.FlowState flow) {
		return new QueueSnapshot.FlowState(flow.flowControl(), flow.due(), flow.blocked(), flow.keyLimit(),
				flow.keyRateLimit(), flow.rateLimit(), flow.blockedKeys(), flow.windowStarts());
	}

	static Map<String, QueueSnapshot.FlowState> flows(
			Map<String, dev.jobqueue.core.store.QueueSnapshot.FlowState> flows) {
		Map<String, QueueSnapshot.FlowState> views = new LinkedHashMap<>();
		flows.forEach((type, flow) -> views.put(type, flow(flow)));
		return views;
	}

	static QueueSnapshot snapshot(dev.jobqueue.core.store.QueueSnapshot snapshot) {
		dev.jobqueue.core.store.QueueSnapshot.ErrorSummary errors = snapshot.errors();
		dev.jobqueue.core.store.QueueSnapshot.StorageState storage = snapshot.storage();
		return new QueueSnapshot(snapshot.at(), snapshot.counts(), snapshot.claimable(),
				job(snapshot.oldestClaimable()), jobs(snapshot.oldestRunning()), stuck(snapshot.stuck()),
				snapshot.retries(), snapshot.retriesByType(),
				new QueueSnapshot.ErrorSummary(errors.top()
					.stream()
					.map((error) -> new QueueSnapshot.ErrorCount(error.code(), error.count(), error.failed(),
							error.retrying(), error.byType()))
					.toList(), errors.other(), errors.distinctCodes()),
				snapshot.workers()
					.stream()
					.map((worker) -> new QueueSnapshot.WorkerState(worker.workerId(), worker.host(), worker.pid(),
							worker.types(), worker.concurrency(), worker.startedAt(), worker.heartbeatAt(),
							worker.alive()))
					.toList(),
				snapshot.unhandled(),
				new QueueSnapshot.StorageState(storage.store(), storage.location(), storage.databaseBytes(),
						storage.walBytes(), storage.pageSize(), storage.pageCount(), storage.freePages(),
						storage.busyRetries(), storage.details()),
				flows(snapshot.flow()));
	}

}
