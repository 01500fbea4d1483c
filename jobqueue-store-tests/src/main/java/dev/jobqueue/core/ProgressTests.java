package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.JobProgress;
import dev.jobqueue.core.store.QueueInsights.JobDetail;
import dev.jobqueue.core.store.QueueInsights.StuckJobs;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Progress a running job reports ({@link dev.jobqueue.JobContext#progress}) on every
 * store: stored with the run's heartbeat, read back for the dashboard and with the job,
 * kept after the job ends, and written only by the run that holds the job.
 */
public abstract class ProgressTests extends StoreTests {

	private static ClaimRequest claim(String workerId, Instant now) {
		return new ClaimRequest(workerId, 1, Set.of("render"), Map.of(), Set.of(), now.plusSeconds(30));
	}

	private JobDetail detail(long id) {
		return this.db.insights().job(id, 100).orElseThrow();
	}

	@Test
	void progressIsReadBackWhileTheJobRunsAndTheLatestIsKeptAfterItEnds() {
		long quiet = this.harness.queue.enqueue("quiet", 1);
		AtomicReference<Map<Long, JobProgress>> whileRunning = new AtomicReference<>();
		AtomicReference<JobProgress> inDetailWhileRunning = new AtomicReference<>();
		this.harness.handle(HandlerDefinition.of("render", (payload, context) -> {
			context.progress(3, 10, "frame 3 of 10");
			whileRunning.set(this.db.insights().progress(List.of(context.jobId(), quiet)));
			inDetailWhileRunning.set(detail(context.jobId()).progress());
			// Past the worker's write interval, so this one is written too.
			this.clock.advance(Duration.ofSeconds(3));
			context.progress(10, 10, "done");
			return "rendered";
		}));
		Instant start = this.clock.instant();
		long render = this.harness.queue.enqueue("render", 1);

		assertThat(this.harness.directWorker("w1").pollOnce()).isOne();

		JobProgress first = new JobProgress(3, 10, "frame 3 of 10", start);
		assertThat(whileRunning.get()).as("a job that reported nothing is left out")
			.containsExactly(Map.entry(render, first));
		assertThat(inDetailWhileRunning.get()).isEqualTo(first);
		JobProgress last = new JobProgress(10, 10, "done", start.plusSeconds(3));
		assertThat(this.db.insights().progress(List.of(render, quiet))).containsExactly(Map.entry(render, last));
		assertThat(detail(render).job().status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(detail(render).progress()).isEqualTo(last);
		assertThat(detail(quiet).progress()).isNull();
		assertThat(this.db.insights().progress(List.of())).isEmpty();
	}

	@Test
	void progressMovesTheHeartbeatSoTheJobIsNotStuckButLeavesTheLease() {
		AtomicReference<StuckJobs> before = new AtomicReference<>();
		AtomicReference<StuckJobs> after = new AtomicReference<>();
		AtomicReference<JobDetail> afterDetail = new AtomicReference<>();
		Instant start = this.clock.instant();
		Instant reported = start.plusSeconds(1);
		this.harness.handle(HandlerDefinition.of("render", (payload, context) -> {
			context.heartbeat();
			before.set(this.db.insights().stuck(reported, 10));
			// Within a tenth of the lease the run writes no heartbeat of its own: only
			// the progress can move it.
			this.clock.advance(Duration.ofSeconds(1));
			context.progress(1, 2, null);
			after.set(this.db.insights().stuck(reported, 10));
			afterDetail.set(detail(context.jobId()));
			return null;
		}));
		long render = this.harness.queue.enqueue("render", 1);

		this.harness.directWorker("w1").pollOnce();

		assertThat(before.get().count()).isOne();
		assertThat(after.get().count()).isZero();
		assertThat(afterDetail.get().job().heartbeatAt()).isEqualTo(reported);
		assertThat(afterDetail.get().leaseUntil()).isEqualTo(start.plusSeconds(30));
		assertThat(afterDetail.get().progress()).isEqualTo(new JobProgress(1, 2, null, reported));
		assertThat(detail(render).job().status()).isEqualTo(JobStatus.SUCCEEDED);
	}

	@Test
	void aRunThatLostItsLeaseWritesNoProgressWhileTheNextRunHoldsTheJob() {
		AtomicReference<ClaimedJob> nextRun = new AtomicReference<>();
		this.harness.handle(HandlerDefinition.of("render", (payload, context) -> {
			// The lease runs out while the handler works; recovery takes the job back and
			// another worker claims it before this run reports.
			this.clock.advance(Duration.ofMinutes(1));
			Instant now = this.clock.instant();
			this.db.store().recoverExpiredLeases(now, 10);
			nextRun.set(this.db.store().claim(claim("w2", now), now).get(0));
			context.progress(5, 10, "late");
			return "late";
		}));
		long render = this.harness.queue.enqueue("render", 1);

		this.harness.directWorker("w1").pollOnce();

		assertThat(nextRun.get().run()).isEqualTo(2);
		assertThat(detail(render).job().status()).isEqualTo(JobStatus.RUNNING);
		assertThat(detail(render).job().workerId()).isEqualTo("w2");
		assertThat(this.db.insights().progress(List.of(render))).isEmpty();
		assertThat(detail(render).progress()).isNull();

		JobProgress reported = new JobProgress(7, 10, "second run", this.clock.instant());
		this.db.store().recordProgress(new RunningJobRef(render, nextRun.get().run()), reported);

		assertThat(detail(render).progress()).isEqualTo(reported);
	}

	@Test
	void aFinishedRunWritesNoProgress() {
		long id = this.harness.queue.enqueue("render", 1);
		Instant start = this.clock.instant();
		ClaimedJob job = this.db.store().claim(claim("w1", start), start).get(0);
		RunningJobRef run = new RunningJobRef(job.id(), job.run());
		JobProgress reported = new JobProgress(1, 4, "a", start.plusSeconds(1));
		this.db.store().recordProgress(run, reported);
		assertThat(this.db.store().complete(List.of(Completion.succeeded(job, null)), "w1", start.plusSeconds(2)))
			.containsExactly(true);

		this.db.store().recordProgress(run, new JobProgress(2, 4, "b", start.plusSeconds(3)));

		assertThat(detail(id).progress()).isEqualTo(reported);
		assertThat(this.db.insights().progress(List.of(id))).containsExactly(Map.entry(id, reported));
	}

}
