package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.jobqueue.FanOut;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retention deletes chains whole, never part of one (docs/chains.md), on every store: a
 * chain goes once every step finished before the cutoff of its status, and a finished job
 * that an unfinished job waits for stays.
 */
public abstract class RetentionChainTests extends StoreTests {

	private Instant now() {
		return this.clock.instant();
	}

	/** Runs the due job of {@code type} first in claim order to success, now. */
	private long succeed(String type) {
		List<ClaimedJob> claimed = this.db.store()
			.claim(new ClaimRequest("w1", 1, Set.of(type), Map.of(), Set.of(), now().plusSeconds(30)), now());
		assertThat(claimed).as("a due '%s' job to run", type).hasSize(1);
		assertThat(this.db.store().complete(List.of(Completion.succeeded(claimed.get(0), null)), "w1", now()))
			.containsExactly(true);
		return claimed.get(0).id();
	}

	private long chainSteps(long chainId) {
		return this.db.count("SELECT count(*) FROM jobs WHERE chain_id = ?", chainId);
	}

	@Test
	void aChainGoesWholeOnlyOnceEveryStepIsFinishedBeforeTheCutoffOfItsStatusAndNothingOutsideWaitsForIt() {
		RetentionStore retention = this.db.retention();
		FanOut fanOut = this.harness.queue.enqueueFanOut(List.of(JobRequest.of("child", 1), JobRequest.of("child", 2)),
				JobRequest.of("join", 0));
		long plain = this.harness.queue.enqueue("child", 3);
		long waitedFor = this.harness.queue.enqueue("child", 4);
		for (int i = 0; i < 4; i++) {
			succeed("child");
		}
		long outside = this.harness.queue.enqueue(JobRequest.of("later", 1).after(waitedFor, fanOut.childIds().get(0)));
		assertThat(this.harness.queue.find(outside).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		Instant cutoff = now().plusSeconds(1);

		// Chain steps never go one by one; a job that a pending job waits for stays.
		assertThat(retention.deleteFinished(JobStatus.SUCCEEDED, "child", cutoff, 100)).isOne();
		assertThat(this.harness.queue.find(plain)).isEmpty();
		assertThat(this.harness.queue.find(waitedFor)).isPresent();

		// The join is unfinished: the chain stays whole.
		assertThat(retention.deleteFinishedChains(Map.of(JobStatus.SUCCEEDED, cutoff), 10)).isZero();
		succeed("join");
		// Finished steps that nothing waits for still never go one by one.
		assertThat(retention.deleteFinished(JobStatus.SUCCEEDED, "child", cutoff, 100)).isZero();
		assertThat(retention.deleteFinished(JobStatus.SUCCEEDED, "join", cutoff, 100)).isZero();
		// A job outside the chain that waits for one of its steps keeps it.
		assertThat(retention.deleteFinishedChains(Map.of(JobStatus.SUCCEEDED, cutoff), 10)).isZero();
		succeed("later");
		// A status kept forever keeps the chain; so does a cutoff before the steps
		// finished.
		assertThat(retention.deleteFinishedChains(Map.of(JobStatus.FAILED, cutoff), 10)).isZero();
		assertThat(retention.deleteFinishedChains(Map.of(JobStatus.SUCCEEDED, now()), 10)).isZero();
		assertThat(chainSteps(fanOut.chainId())).isEqualTo(3);

		assertThat(retention.deleteFinishedChains(Map.of(JobStatus.SUCCEEDED, cutoff), 10)).isEqualTo(3);

		assertThat(this.harness.queue.findChain(fanOut.chainId())).isEmpty();
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE job_id = ?", fanOut.joinId())).isZero();
		assertThat(this.db.column("SELECT depends_on FROM job_dependencies WHERE job_id = ?", outside)).singleElement()
			.satisfies((dependency) -> assertThat(((Number) dependency).longValue()).isEqualTo(waitedFor));
	}

	@Test
	void aBatchDeletesAtMostItsLimitOfChains() {
		for (int i = 0; i < 3; i++) {
			this.harness.queue.enqueueFanOut(List.of(JobRequest.of("child", i)), JobRequest.of("join", i));
			succeed("child");
			succeed("join");
		}
		Map<JobStatus, Instant> cutoffs = Map.of(JobStatus.SUCCEEDED, now().plusSeconds(1));

		assertThat(this.db.retention().deleteFinishedChains(cutoffs, 2)).isEqualTo(4);
		assertThat(this.db.retention().deleteFinishedChains(cutoffs, 2)).isEqualTo(2);
		assertThat(this.db.retention().deleteFinishedChains(cutoffs, 2)).isZero();
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isZero();
	}

	@Test
	void theCleanerDeletesAChainOnceItsLastStepIsOldEnoughAndKeepsAJobThatIsWaitedFor() {
		this.harness.handle(HandlerDefinition.of("upload", (payload, context) -> {
			context.continueWith("scan", payload);
			return null;
		})).handle(HandlerDefinition.of("scan", (payload, context) -> {
			context.continueWith("publish", payload);
			return null;
		}));
		long upload = this.harness.queue.enqueue("upload", "file");
		long plain = this.harness.queue.enqueue("upload-free", "x");
		JobWorker worker = this.harness.directWorker("w1");
		worker.pollOnce();
		worker.pollOnce();
		// "publish" has no handler yet: the chain is unfinished, its first steps are old.
		succeed("upload-free");
		long waitsForPlain = this.harness.queue.enqueue(JobRequest.of("later", 1).after(plain));
		this.clock.advance(Duration.ofDays(60));
		RetentionPolicy thirtyDays = RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(30), Duration.ofDays(30),
				Map.of());
		RetentionCleaner cleaner = new RetentionCleaner(this.db.retention(), this.db.fileMaintenance().orElse(null),
				RetentionSettings.of(thirtyDays, 100).withBatchPause(0), this.clock, "me", () -> true);

		cleaner.purgeOnce();
		assertThat(chainSteps(upload)).isEqualTo(3);
		assertThat(this.harness.queue.find(plain)).as("a finished job that an unfinished job waits for stays")
			.isPresent();
		assertThat(this.harness.queue.find(waitsForPlain)).isPresent();

		succeed("publish");
		this.clock.advance(Duration.ofDays(10));
		cleaner.purgeOnce();
		assertThat(chainSteps(upload)).as("the last step is too young: the chain stays whole").isEqualTo(3);

		this.clock.advance(Duration.ofDays(30));
		var report = cleaner.purgeOnce();
		assertThat(chainSteps(upload)).isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_events WHERE job_id = ?", upload)).isZero();
		assertThat(report.deleted(JobStatus.SUCCEEDED)).as("chain steps count with the succeeded jobs").isEqualTo(3);
	}

}
