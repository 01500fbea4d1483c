package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.FanOut;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.QueueInsights.Attempt;
import dev.jobqueue.core.store.QueueInsights.Event;
import dev.jobqueue.core.store.QueueInsights.JobDetail;
import dev.jobqueue.core.store.QueueInsights.JobLinks;
import dev.jobqueue.core.store.QueueInsights.JobPage;
import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.core.store.QueueInsights.JobSummary;
import dev.jobqueue.core.store.QueueInsights.Outcomes;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.core.store.QueueInsights.Text;
import dev.jobqueue.core.store.QueueSnapshot;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The job lists, the one-job view and the outcome history of
 * {@link dev.jobqueue.core.store.QueueInsights} on every store: what the endpoint and the
 * dashboard show beside the snapshot ({@link InsightsTests}).
 */
public abstract class InsightsJobViewTests extends StoreTests {

	private Instant now() {
		return this.clock.instant();
	}

	private long enqueue(String type) {
		return this.harness.queue.enqueue(type, "{}");
	}

	/** Claims the due job of {@code type} first in claim order. */
	private ClaimedJob claim(String type, String workerId, Instant at, Instant leaseUntil) {
		List<ClaimedJob> claimed = this.db.store()
			.claim(new ClaimRequest(workerId, 1, Set.of(type), Map.of(), Set.of(), leaseUntil), at);
		assertThat(claimed).as("a due '%s' job to claim at %s", type, at).hasSize(1);
		return claimed.get(0);
	}

	private ClaimedJob claim(String type) {
		return claim(type, "w1", now(), now().plus(Duration.ofHours(1)));
	}

	private void complete(Completion completion, Instant at) {
		assertThat(this.db.store().complete(List.of(completion), "w1", at)).containsExactly(true);
	}

	private JobPage jobs(JobStatus status, String type, String errorCode, Long before, int limit) {
		return this.db.insights().jobs(new JobQuery(status, type, errorCode, before, limit));
	}

	private static List<Long> ids(JobPage page) {
		return page.jobs().stream().map(JobSummary::id).toList();
	}

	private JobDetail detail(long id, int preview) {
		return this.db.insights().job(id, preview).orElseThrow();
	}

	@Test
	void jobListsAreNewestFirstFilteredByStatusTypeAndErrorCodeAndPaged() {
		long m1 = enqueue("mail");
		long m2 = enqueue("mail");
		long m3 = enqueue("mail");
		long m4 = enqueue("mail");
		long m5 = enqueue("mail");
		long r1 = enqueue("report");
		long r2 = enqueue("report");
		complete(Completion.failed(claim("mail"), "SMTP:REFUSED", "no"), now());
		complete(Completion.succeeded(claim("mail"), null), now());
		complete(Completion.failed(claim("mail"), "SMTP:REFUSED", "no"), now());
		complete(Completion.failed(claim("report"), "PDF:BROKEN", "no"), now());

		JobPage first = jobs(null, null, null, null, 3);
		assertThat(ids(first)).containsExactly(r2, r1, m5);
		JobPage second = jobs(null, null, null, first.nextBefore(), 3);
		assertThat(ids(second)).containsExactly(m4, m3, m2);
		JobPage last = jobs(null, null, null, second.nextBefore(), 3);
		assertThat(ids(last)).containsExactly(m1);
		assertThat(last.nextBefore()).isNull();
		assertThat(jobs(null, null, null, null, 7).nextBefore()).as("a page that holds every job is the last").isNull();

		assertThat(ids(jobs(JobStatus.FAILED, null, null, null, 10))).containsExactly(r1, m3, m1);
		assertThat(ids(jobs(JobStatus.FAILED, "mail", null, null, 10))).containsExactly(m3, m1);
		assertThat(ids(jobs(JobStatus.PENDING, "mail", null, null, 10))).containsExactly(m5, m4);
		assertThat(ids(jobs(null, "report", null, null, 10))).containsExactly(r2, r1);
		assertThat(ids(jobs(null, null, "SMTP:REFUSED", null, 10))).containsExactly(m3, m1);
		JobPage byCode = jobs(JobStatus.FAILED, null, "SMTP:REFUSED", null, 1);
		assertThat(ids(byCode)).containsExactly(m3);
		assertThat(ids(jobs(JobStatus.FAILED, null, "SMTP:REFUSED", byCode.nextBefore(), 1))).containsExactly(m1);
		assertThat(ids(jobs(JobStatus.CANCELLED, null, null, null, 10))).isEmpty();

		JobSummary failed = jobs(null, null, null, m4, 1).jobs().get(0);
		assertThat(failed).isEqualTo(new JobSummary(m3, "mail", JobStatus.FAILED, 0, 1, 3, now(), now(), now(), now(),
				"w1", now(), "SMTP:REFUSED"));
		assertThat(jobs(null, null, null, m3, 1).jobs().get(0).id()).isEqualTo(m2);
	}

	@Test
	void oneJobComesWithItsAttemptsItsTimelineAndItsPayloadAndResultShortened() {
		String payload = "\"" + "a payload forty characters long, or so." + "\"";
		long id = this.harness.queue
			.enqueue(JobRequest.of("mail", "a payload forty characters long, or so.").dedupKey("mail-42"));
		Instant start = now();
		complete(Completion.retry(claim("mail"), "SMTP:BUSY", "busy", start.plus(Duration.ofMinutes(1))), start);
		this.clock.advance(Duration.ofMinutes(1));
		Instant retried = now();
		ClaimedJob second = claim("mail", "w2", retried, retried.plusSeconds(30));
		assertThat(this.db.store().complete(List.of(Completion.succeeded(second, "\"sent\"")), "w2", retried))
			.containsExactly(true);

		JobDetail detail = detail(id, 10);

		assertThat(detail.job()).isEqualTo(new JobSummary(id, "mail", JobStatus.SUCCEEDED, 0, 2, 3, start,
				start.plus(Duration.ofMinutes(1)), retried, retried, "w2", retried, null));
		assertThat(detail.dedupKey()).isEqualTo("mail-42");
		assertThat(detail.leaseUntil()).isNull();
		assertThat(detail.errorDetail()).isNull();
		assertThat(detail.cancelRequested()).isFalse();
		assertThat(detail.traceParent()).isNull();
		assertThat(detail.payload()).isEqualTo(new Text(payload.length(), payload.substring(0, 10), true));
		assertThat(detail.result()).isEqualTo(new Text(6, "\"sent\"", false));
		assertThat(detail.attempts()).containsExactly(
				new Attempt(1, 1, "w1", start, start, "FAILED", "SMTP:BUSY", "busy", null),
				new Attempt(2, 2, "w2", retried, retried, "SUCCEEDED", null, null, null));
		assertThat(detail.events()).extracting(Event::event)
			.containsExactly("ENQUEUED", "CLAIMED", "RETRY_SCHEDULED", "CLAIMED", "SUCCEEDED");
		assertThat(detail.events()).extracting(Event::at).containsExactly(start, start, start, retried, retried);
		assertThat(detail.events()).extracting(Event::actor).containsExactly(null, "w1", "w1", "w2", "w2");
		assertThat(detail.progress()).isNull();
		assertThat(detail.links()).isEqualTo(JobLinks.NONE);

		JobDetail withoutValues = detail(id, 0);
		assertThat(withoutValues.payload()).isEqualTo(new Text(payload.length(), null, true));
		assertThat(withoutValues.result()).isEqualTo(new Text(6, null, true));
		assertThat(this.db.insights().job(id + 1000, 10)).isEmpty();
	}

	@Test
	void aJobShowsItsLatestEventsOnly() {
		long id = enqueue("mail");
		int written = JobDetail.MAX_EVENTS + 5;
		for (int i = 0; i < written; i++) {
			this.db.store().recordEvent(id, "CANCEL_IGNORED", "w1", "#" + i, now());
		}

		List<Event> events = detail(id, 0).events();

		assertThat(events).hasSize(JobDetail.MAX_EVENTS);
		assertThat(events.get(0).detail()).isEqualTo("#5");
		assertThat(events.get(events.size() - 1).detail()).isEqualTo("#" + (written - 1));
	}

	@Test
	void aJobShowsItsChainWhatItWaitsForAndWhatWaitsForIt() {
		List<JobRequest> children = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			children.add(JobRequest.of("child", i));
		}
		FanOut fanOut = this.harness.queue.enqueueFanOut(children, JobRequest.of("join", 0));
		long plain = enqueue("plain");
		long later = this.harness.queue
			.enqueue(JobRequest.of("later", 1).after(plain).onDependencyFailure(DependencyPolicy.RUN));
		List<Long> steps = new ArrayList<>(fanOut.childIds());
		steps.add(fanOut.joinId());

		JobLinks join = detail(fanOut.joinId(), 0).links();

		assertThat(join.chainId()).isEqualTo(fanOut.chainId()).isEqualTo(fanOut.childIds().get(0));
		assertThat(join.chainIndex()).isOne();
		assertThat(join.chainLength()).isEqualTo(4);
		assertThat(join.chainSteps()).extracting(JobSummary::id).containsExactlyElementsOf(steps);
		assertThat(join.unfinishedDependencies()).isEqualTo(3);
		assertThat(join.dependencyPolicy()).isEqualTo(DependencyPolicy.CANCEL);
		assertThat(join.waitsFor()).extracting(JobSummary::id).containsExactlyElementsOf(fanOut.childIds());
		assertThat(join.waitsForCount()).isEqualTo(3);
		assertThat(join.waitedBy()).isEmpty();
		JobLinks child = detail(fanOut.childIds().get(1), 0).links();
		assertThat(child.chainIndex()).isZero();
		assertThat(child.waitedBy()).extracting(JobSummary::id).containsExactly(fanOut.joinId());
		assertThat(child.waitedByCount()).isOne();
		assertThat(child.dependencyPolicy()).isNull();

		JobLinks waiting = detail(later, 0).links();
		assertThat(waiting.chainId()).isNull();
		assertThat(waiting.chainSteps()).isEmpty();
		assertThat(waiting.waitsFor()).extracting(JobSummary::id).containsExactly(plain);
		assertThat(waiting.unfinishedDependencies()).isOne();
		assertThat(waiting.dependencyPolicy()).isEqualTo(DependencyPolicy.RUN);
		assertThat(detail(plain, 0).links().waitedBy()).extracting(JobSummary::id).containsExactly(later);
		assertThat(detail(enqueue("alone"), 0).links()).isEqualTo(JobLinks.NONE);
		QueueSnapshot snapshot = this.db.insights()
			.snapshot(now(), new SnapshotSettings(Duration.ofMinutes(15), 5, Duration.ofMinutes(3), 10));
		assertThat(snapshot.counts().get("join")).isEqualTo(Map.of(JobStatus.WAITING, 1L));
	}

	@Test
	void outcomesPerSlotTellFailuresForGoodFromRetriedRuns() {
		// Four jobs at a minute's start: the first fails and succeeds when retried, the
		// second fails twice, the second time for good, the third loses its lease and
		// waits to run again, the fourth is still running.
		Instant start = now();
		Instant later = start.plus(Duration.ofHours(1));
		enqueue("mail");
		this.harness.queue.enqueue(JobRequest.of("mail", 2).maxAttempts(2));
		enqueue("mail");
		enqueue("mail");
		Instant firstEnd = start.plusMillis(10);
		complete(Completion.retry(claim("mail", "w1", start, later), "SMTP:BUSY", "busy", firstEnd), firstEnd);
		Instant secondEnd = start.plusMillis(20);
		complete(Completion.retry(claim("mail", "w1", start, later), "SMTP:BUSY", "busy", secondEnd), secondEnd);
		claim("mail", "w1", start, start.plusMillis(25));
		claim("mail", "w1", start, later);
		assertThat(this.db.store().recoverExpiredLeases(start.plusMillis(30), 10)).isOne();
		Instant success = start.plusSeconds(65);
		complete(Completion.succeeded(claim("mail", "w1", start.plusSeconds(60), later), null), success);
		Instant failure = start.plusSeconds(121);
		complete(Completion.failed(claim("mail", "w1", start.plusSeconds(120), later), "SMTP:REFUSED", "no"), failure);

		List<Outcomes> outcomes = this.db.insights().outcomes(start, start.plusSeconds(180), Duration.ofMinutes(1));

		assertThat(outcomes).extracting(Outcomes::start)
			.containsExactly(start, start.plusSeconds(60), start.plusSeconds(120));
		assertThat(outcomes).extracting((slot) -> List.of(slot.succeeded(), slot.failed(), slot.retried()))
			.containsExactly(List.of(0L, 0L, 3L), List.of(1L, 0L, 0L), List.of(0L, 1L, 0L));
		assertThat(this.db.insights().outcomes(start.plusSeconds(30), start.plusSeconds(90), Duration.ofMinutes(1)))
			.as("the first slot holds 'from', the last ends at 'to'")
			.extracting(Outcomes::total)
			.containsExactly(3L, 1L);
		for (Duration slot : List.of(Duration.ofMillis(500), Duration.ofSeconds(30), Duration.ofSeconds(90))) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.db.insights().outcomes(start, start.plusSeconds(180), slot))
				.withMessageContaining("whole number of minutes");
		}
	}

	@Test
	void outcomesAddUpTheRunsOfTwoProcessesAndKeepWhatARunCountedAsWhenItEnded() {
		// Two processes on one database end runs in the same minutes: successes in one
		// round each, a retried failure, a failure for good, and lease recovery taking
		// back a run that goes again and one that had no attempt left.
		Instant start = now();
		Instant later = start.plus(Duration.ofHours(1));
		try (StoreFixture other = this.db.anotherProcess()) {
			for (int i = 0; i < 5; i++) {
				enqueue("mail");
			}
			List<ClaimedJob> first = this.db.store()
				.claim(new ClaimRequest("w1", 3, Set.of("mail"), Map.of(), Set.of(), later), start);
			List<ClaimedJob> second = other.store()
				.claim(new ClaimRequest("w2", 2, Set.of("mail"), Map.of(), Set.of(), later), start);
			Instant ended = start.plusSeconds(10);
			assertThat(this.db.store()
				.complete(first.stream().map((job) -> Completion.succeeded(job, null)).toList(), "w1", ended))
				.containsOnly(true);
			assertThat(other.store()
				.complete(second.stream().map((job) -> Completion.succeeded(job, null)).toList(), "w2", ended))
				.containsOnly(true);

			long failing = this.harness.queue.enqueue(JobRequest.of("mail", 2).maxAttempts(2));
			Instant minute1 = start.plusSeconds(60);
			ClaimedJob run1 = claim("mail", "w2", minute1, later);
			assertThat(run1.id()).isEqualTo(failing);
			Instant retryAt = minute1.plusSeconds(5);
			assertThat(other.store()
				.complete(List.of(Completion.retry(run1, "SMTP:BUSY", "busy", retryAt)), "w2", minute1.plusSeconds(1)))
				.containsExactly(true);
			ClaimedJob run2 = claim("mail", "w1", retryAt, later);
			assertThat(this.db.store()
				.complete(List.of(Completion.failed(run2, "SMTP:REFUSED", "no")), "w1", minute1.plusSeconds(6)))
				.containsExactly(true);

			long once = this.harness.queue.enqueue(JobRequest.of("once", 3).maxAttempts(1));
			long twice = this.harness.queue.enqueue(JobRequest.of("twice", 4).maxAttempts(2));
			Instant minute2 = start.plusSeconds(120);
			claim("once", "w1", minute2, minute2.plusSeconds(1));
			claim("twice", "w1", minute2, minute2.plusSeconds(1));
			assertThat(other.store().recoverExpiredLeases(minute2.plusSeconds(2), 10)).isEqualTo(2);
			assertThat(this.db.admin().find(once).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
			assertThat(this.db.admin().find(twice).orElseThrow().status()).isEqualTo(JobStatus.PENDING);

			// A person retries the failed jobs: their failures stay failures for good, as
			// the chart showed them when they ended.
			assertThat(this.db.admin().retry(failing, minute2.plusSeconds(3))).isTrue();
			assertThat(this.db.admin().retry(once, minute2.plusSeconds(3))).isTrue();

			for (StoreFixture process : List.of(this.db, other)) {
				assertThat(process.insights().outcomes(start, start.plusSeconds(180), Duration.ofMinutes(1)))
					.extracting((slot) -> List.of(slot.succeeded(), slot.failed(), slot.retried()))
					.containsExactly(List.of(5L, 0L, 0L), List.of(0L, 1L, 1L), List.of(0L, 1L, 1L));
				assertThat(
						process.insights().outcomes(start, start.plus(Duration.ofMinutes(10)), Duration.ofMinutes(10)))
					.extracting((slot) -> List.of(slot.succeeded(), slot.failed(), slot.retried()))
					.containsExactly(List.of(5L, 2L, 2L));
			}
		}
	}

	@Test
	void outcomesCountEveryRunWhenTwoProcessesEndRunsAtOnce() throws Exception {
		// Three threads per process end runs of one worker each at the same instant, so
		// the rounds of a process add to one row of the rollup at once; the other
		// process adds to its own.
		int jobs = 240;
		for (int i = 0; i < jobs; i++) {
			enqueue("mail");
		}
		Instant at = now().plusSeconds(5);
		try (StoreFixture other = this.db.anotherProcess()) {
			List<Callable<Integer>> threads = new ArrayList<>();
			for (StoreFixture process : List.of(this.db, other)) {
				String worker = (process == this.db) ? "w1" : "w2";
				for (int t = 0; t < 3; t++) {
					threads.add(() -> {
						int ended = 0;
						while (true) {
							List<ClaimedJob> claimed = process.store()
								.claim(new ClaimRequest(worker, 7, Set.of("mail"), Map.of(), Set.of(),
										at.plusSeconds(60)), at);
							if (claimed.isEmpty()) {
								return ended;
							}
							List<Completion> outcomes = new ArrayList<>();
							for (int k = 0; k < claimed.size(); k++) {
								outcomes.add((k % 3 == 0) ? Completion.failed(claimed.get(k), "X:Y", "no")
										: Completion.succeeded(claimed.get(k), null));
							}
							boolean[] applied = process.store().complete(outcomes, worker, at);
							for (boolean one : applied) {
								ended += one ? 1 : 0;
							}
						}
					});
				}
			}
			ExecutorService executor = Executors.newFixedThreadPool(threads.size());
			try {
				long ended = 0;
				for (Future<Integer> thread : executor.invokeAll(threads)) {
					ended += thread.get();
				}
				assertThat(ended).isEqualTo(jobs);
			}
			finally {
				executor.shutdownNow();
			}
			long failed = this.db.count("SELECT count(*) FROM jobs WHERE status = 'failed'");
			for (StoreFixture process : List.of(this.db, other)) {
				assertThat(process.insights().outcomes(now(), now().plusSeconds(60), Duration.ofMinutes(1)))
					.singleElement()
					.satisfies((slot) -> {
						assertThat(slot.succeeded()).isEqualTo(jobs - failed);
						assertThat(slot.failed()).isEqualTo(failed);
						assertThat(slot.retried()).isZero();
					});
			}
		}
	}

}
