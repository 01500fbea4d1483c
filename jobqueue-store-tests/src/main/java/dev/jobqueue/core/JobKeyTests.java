package dev.jobqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

import dev.jobqueue.BulkRequest;
import dev.jobqueue.BulkResult;
import dev.jobqueue.FanOut;
import dev.jobqueue.Job;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobFilter;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.core.store.QueueInsights.JobSearch;
import dev.jobqueue.core.store.QueueInsights.JobSummary;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A job's key ({@link JobRequest#key(String)}): stored by every way a job goes in, shown
 * with the job and to its handler ({@link JobContext#key()}), refused at enqueue when
 * malformed, and a filter of lists, bulk actions and search.
 */
public abstract class JobKeyTests extends StoreTests {

	private Job find(long id) {
		return this.harness.queue.find(id).orElseThrow();
	}

	private List<Long> listed(String key) {
		return this.db.insights()
			.jobs(new JobQuery(null, null, null, key, null, 50))
			.jobs()
			.stream()
			.map(JobSummary::id)
			.toList();
	}

	@Test
	void aKeyIsStoredAndShownWithTheJobAndNullByDefault() {
		long keyed = this.harness.queue.enqueue(JobRequest.of("export", 1).key("customer-42"));
		long plain = this.harness.queue.enqueue("export", 2);

		assertThat(find(keyed).key()).isEqualTo("customer-42");
		assertThat(find(plain).key()).isNull();
		assertThat(this.db.insights().job(keyed, 100).orElseThrow().job().key()).isEqualTo("customer-42");
		assertThat(this.db.insights().jobs(new JobQuery(null, "export", null, null, 10)).jobs())
			.extracting(JobSummary::key)
			.containsExactly(null, "customer-42");
	}

	@Test
	void aHandlerReadsItsJobsKeyFromItsContextWhateverTheTypesFlowControl() {
		// Types with and without limits per key are claimed by different statements.
		Map<String, Optional<String>> seen = new ConcurrentHashMap<>();
		for (FlowControl flow : List.of(FlowControl.NONE, new FlowControl(null, null, 1, false, true),
				new FlowControl(null, null, 0, true, true))) {
			String type = "export-" + (flow.ordered() ? "ordered" : (flow.keyConcurrency() > 0) ? "one" : "free");
			this.harness.handle(new HandlerDefinition(type, (payload, context) -> {
				seen.put(type + ":" + payload.replace("\"", ""), context.key());
				return null;
			}, 0, null, 0, true, type, 0, flow));
			this.harness.queue.enqueue(JobRequest.of(type, "keyed").key("customer-42"));
			this.harness.queue.enqueue(type, "plain");
		}
		JobWorker worker = this.harness.directWorker("w1");
		for (int i = 0; i < 3 && seen.size() < 6; i++) {
			worker.pollOnce();
		}

		assertThat(seen).containsOnlyKeys("export-free:keyed", "export-free:plain", "export-one:keyed",
				"export-one:plain", "export-ordered:keyed", "export-ordered:plain");
		seen.forEach((job, key) -> assertThat(key).as(job)
			.isEqualTo(job.endsWith(":keyed") ? Optional.of("customer-42") : Optional.empty()));
	}

	@Test
	void aRetriedJobAndAContinuationSeeTheirOwnKeys() {
		Map<String, Optional<String>> seen = new ConcurrentHashMap<>();
		this.harness.handle(HandlerDefinition.of("first", (payload, context) -> {
			seen.put("first attempt " + context.attempt(), context.key());
			if (context.attempt() == 1) {
				throw new IllegalStateException("try again");
			}
			context.continueWith(JobRequest.of("second", payload).key("k-second"));
			return null;
		})).handle(HandlerDefinition.of("second", (payload, context) -> {
			seen.put("second", context.key());
			return null;
		}));
		long first = this.harness.queue.enqueue(JobRequest.of("first", 1).key("k-first"));
		JobWorker worker = this.harness.directWorker("w1");
		worker.pollOnce();
		this.clock.advance(Duration.ofMinutes(1));
		worker.pollOnce();
		worker.pollOnce();

		assertThat(find(first).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(seen).containsExactlyInAnyOrderEntriesOf(Map.of("first attempt 1", Optional.of("k-first"),
				"first attempt 2", Optional.of("k-first"), "second", Optional.of("k-second")));
	}

	@Test
	void everyWayAJobGoesInStoresItsKey() {
		// One at a time with a dedup key, a batch without dedup keys, and a job that
		// waits.
		long deduplicated = this.harness.queue.enqueue(JobRequest.of("a", 1).dedupKey("d").key("k-dedup"));
		List<Long> batch = this.harness.queue
			.enqueueAll(List.of(JobRequest.of("a", 2).key("k-batch"), JobRequest.of("a", 3)));
		long waiting = this.harness.queue.enqueue(JobRequest.of("a", 4).after(deduplicated).key("k-waits"));
		FanOut fanOut = this.harness.queue.enqueueFanOut(
				List.of(JobRequest.of("child", 1).key("k-child"), JobRequest.of("child", 2)),
				JobRequest.of("join", 0).key("k-join"));

		assertThat(find(deduplicated).key()).isEqualTo("k-dedup");
		assertThat(batch).extracting((id) -> find(id).key()).containsExactly("k-batch", null);
		assertThat(find(waiting).key()).isEqualTo("k-waits");
		assertThat(fanOut.childIds()).extracting((id) -> find(id).key()).containsExactly("k-child", null);
		assertThat(find(fanOut.joinId()).key()).isEqualTo("k-join");
	}

	@Test
	void aContinuationHasTheKeyItsRequestGivesNotThePreviousSteps() {
		this.harness.handle(HandlerDefinition.of("first", (payload, context) -> {
			context.continueWith(JobRequest.of("second", payload).key("k-second"));
			return null;
		})).handle(HandlerDefinition.of("second", (payload, context) -> {
			context.continueWith("third", payload);
			return null;
		})).handle(HandlerDefinition.of("third", (payload, context) -> null));
		long first = this.harness.queue.enqueue(JobRequest.of("first", 1).key("k-first"));
		JobWorker worker = this.harness.directWorker("w1");
		for (int i = 0; i < 3; i++) {
			worker.pollOnce();
		}
		assertThat(this.harness.queue.findChain(first)).extracting(Job::key)
			.containsExactly("k-first", "k-second", null);
	}

	@Test
	void aKeyOfUpTo200PrintableCharactersIsAcceptedAndAnyOtherIsRefusedWritingNothing() {
		String longest = "k".repeat(EnqueueLimits.MAX_KEY_LENGTH);
		assertThat(EnqueueLimits.MAX_KEY_LENGTH).isEqualTo(200);
		long id = this.harness.queue.enqueue(JobRequest.of("export", 1).key(longest));
		assertThat(find(id).key()).isEqualTo(longest);

		assertThatThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("export", 2).key(longest + "k")))
			.isInstanceOf(JobQueueException.class)
			.hasMessageContaining("'export' job")
			.hasMessageContaining("201 characters")
			.hasMessageContaining("more than the 200")
			.hasMessageContaining("nothing was enqueued");
		assertThatThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("export", 3).key("customer\n42")))
			.isInstanceOf(JobQueueException.class)
			.hasMessageContaining("control character")
			.hasMessageContaining("index 8");
		assertThatThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("export", 4).key("tab\there")))
			.hasMessageContaining("control character");
		assertThatThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("export", 5).key("  ")))
			.isInstanceOf(JobQueueException.class)
			.hasMessageContaining("blank")
			.hasMessageContaining("or null for a job without a key");
		assertThatThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("export", 6).key("")))
			.hasMessageContaining("blank");
		// Refused before deduplication too: a bad key never returns another job's id.
		this.harness.queue.enqueue(JobRequest.of("export", 7).dedupKey("daily"));
		assertThatThrownBy(
				() -> this.harness.queue.enqueue(JobRequest.of("export", 8).dedupKey("daily").key("bad\nkey")))
			.isInstanceOf(JobQueueException.class)
			.hasMessageContaining("control character");
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(2);
		assertThat(this.db.count("SELECT count(*) FROM job_events")).isEqualTo(2);
	}

	@Test
	void aContinuationWithABadKeyFailsItsRunAndCreatesNothing() {
		this.harness.handle(HandlerDefinition.of("next-step", (payload, context) -> {
			context.continueWith(JobRequest.of("second", payload).key("x".repeat(201)));
			return null;
		})).handle(HandlerDefinition.of("fan-out", (payload, context) -> {
			context.continueWithFanOut(List.of(JobRequest.of("child", 1).key("tab\there")), JobRequest.of("join", 0));
			return null;
		}));
		long nextStep = this.harness.queue.enqueue(JobRequest.of("next-step", 1).maxAttempts(1));
		long fanOut = this.harness.queue.enqueue(JobRequest.of("fan-out", 1).maxAttempts(1));
		JobWorker worker = this.harness.directWorker("w1");
		worker.pollOnce();
		worker.pollOnce();

		assertThat(find(nextStep).status()).isEqualTo(JobStatus.FAILED);
		assertThat(find(nextStep).errorDetail()).contains("more than the 200");
		assertThat(find(fanOut).status()).isEqualTo(JobStatus.FAILED);
		assertThat(find(fanOut).errorDetail()).contains("control character");
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isEqualTo(2);
	}

	@Test
	void oneBadKeyRefusesTheWholeCall() {
		List<JobRequest> requests = List.of(JobRequest.of("export", 1).key("customer-1"), JobRequest.of("export", 2),
				JobRequest.of("export", 3).key("x".repeat(201)));
		assertThatThrownBy(() -> this.harness.queue.enqueueAll(requests)).isInstanceOf(JobQueueException.class)
			.hasMessageContaining("more than the 200");
		assertThatThrownBy(() -> this.harness.queue.enqueueFanOut(
				List.of(JobRequest.of("child", 1), JobRequest.of("child", 2).key("bad\u0000key")),
				JobRequest.of("join", 0)))
			.isInstanceOf(JobQueueException.class)
			.hasMessageContaining("control character");
		assertThatThrownBy(() -> this.harness.queue.enqueueFanOut(List.of(JobRequest.of("child", 1)),
				JobRequest.of("join", 0).key(" ")))
			.hasMessageContaining("blank");
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_events")).isZero();
	}

	@Test
	void aKeysJobsAreListedNewestFirstAndPaged() {
		long first = this.harness.queue.enqueue(JobRequest.of("export", 1).key("customer-7"));
		this.harness.queue.enqueue(JobRequest.of("export", 2).key("customer-8"));
		long second = this.harness.queue.enqueue(JobRequest.of("sync", 3).key("customer-7"));
		this.harness.queue.enqueue("export", 4);
		long third = this.harness.queue.enqueue(JobRequest.of("export", 5).key("customer-7"));

		// Every job first: a list of one key is a statement of its own, not the list of
		// all.
		assertThat(this.db.insights().jobs(new JobQuery(null, null, null, null, 50)).jobs()).hasSize(5);
		assertThat(listed("customer-7")).containsExactly(third, second, first);
		assertThat(this.db.insights().jobs(new JobQuery(null, null, null, null, 50)).jobs()).hasSize(5);
		assertThat(listed("customer-9")).isEmpty();
		// Keys compare as written.
		assertThat(listed("CUSTOMER-7")).isEmpty();
		var page = this.db.insights().jobs(new JobQuery(null, null, null, "customer-7", null, 2));
		assertThat(page.jobs()).extracting(JobSummary::id).containsExactly(third, second);
		assertThat(this.db.insights().jobs(new JobQuery(null, null, null, "customer-7", page.nextBefore(), 2)).jobs())
			.extracting(JobSummary::id)
			.containsExactly(first);
		assertThat(
				this.db.insights().jobs(new JobQuery(JobStatus.PENDING, "export", null, "customer-7", null, 10)).jobs())
			.extracting(JobSummary::id)
			.containsExactly(third, first);
	}

	@Test
	void aBulkActionAppliesToOneKeysJobs() {
		long first = this.harness.queue.enqueue(JobRequest.of("export", 1).key("tenant-a"));
		long other = this.harness.queue.enqueue(JobRequest.of("export", 2).key("tenant-b"));
		long plain = this.harness.queue.enqueue("export", 3);
		long second = this.harness.queue.enqueue(JobRequest.of("export", 4).key("tenant-a"));
		JobFilter tenantA = JobFilter.any().key("tenant-a");
		assertThat(tenantA.toString()).isEqualTo("key=tenant-a");

		assertThat(this.harness.queue.bulk(BulkRequest.cancel(tenantA).dryRun()).matched()).isEqualTo(2);
		BulkResult result = this.harness.queue.bulk(BulkRequest.cancel(tenantA));
		assertThat(result.applied()).isEqualTo(2);
		assertThat(List.of(first, second))
			.allSatisfy((id) -> assertThat(find(id).status()).isEqualTo(JobStatus.CANCELLED));
		assertThat(List.of(other, plain))
			.allSatisfy((id) -> assertThat(find(id).status()).isEqualTo(JobStatus.PENDING));
		assertThat(this.harness.queue.bulk(BulkRequest.retry(tenantA.type("export"))).applied()).isEqualTo(2);
		assertThat(find(first).status()).isEqualTo(JobStatus.PENDING);
	}

	@Test
	void searchingForAKeyFindsItsJobsWhetherValuesMayBeSeenOrNot() {
		long first = this.harness.queue.enqueue(JobRequest.of("export", 1).key("acme-corp"));
		this.harness.queue.enqueue(JobRequest.of("export", 2).key("acme-corp-2"));
		long second = this.harness.queue.enqueue(JobRequest.of("sync", 3).key("acme-corp"));

		for (boolean values : List.of(false, true)) {
			assertThat(this.db.insights().search(JobSearch.of("acme-corp", values)).matches())
				.extracting((match) -> match.job().id() + ":" + match.matchedOn())
				.containsExactly(second + ":key", first + ":key");
		}
	}

}
