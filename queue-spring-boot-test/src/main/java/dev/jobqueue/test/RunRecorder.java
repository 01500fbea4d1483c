package dev.jobqueue.test;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.WorkerListener;

/**
 * Notes the ids of the jobs a {@link JobQueueTester#runDueJobs()} call runs. Outcomes are
 * written on the thread that polls, which for runs on the test thread is the thread that
 * records.
 */
final class RunRecorder implements WorkerListener {

	private final ThreadLocal<@Nullable List<Long>> recording = new ThreadLocal<>();

	void record(List<Long> ids) {
		this.recording.set(ids);
	}

	void stop() {
		this.recording.remove();
	}

	@Override
	public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
		List<Long> ids = this.recording.get();
		if (ids != null) {
			ids.add(job.id());
		}
	}

}
