package dev.jobqueue.test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.worker.WorkerListener;

/**
 * Notes the steps jobs ran (on any thread), and the ids of the jobs a
 * {@link JobQueueTester#runDueJobs()} call runs. Outcomes are written on the thread that
 * polls, which for runs on the test thread is the thread that records.
 */
final class RunRecorder implements WorkerListener {

	private final ThreadLocal<@Nullable List<Long>> recording = new ThreadLocal<>();

	void record(List<Long> ids) {
		this.recording.set(ids);
	}

	void stop() {
		this.recording.remove();
	}

	/** The steps each job ran or replayed, in order: kept for the test to read. */
	private final Map<Long, List<StepDone>> steps = new ConcurrentHashMap<>();

	@Override
	public void stepDone(ClaimedJob job, String step, boolean replayed) {
		this.steps.computeIfAbsent(job.id(), (id) -> new CopyOnWriteArrayList<>()).add(new StepDone(step, replayed));
	}

	/** The steps of a job whose work ran ({@code replayed} false) or was replayed. */
	List<String> steps(long jobId, boolean replayed) {
		return this.steps.getOrDefault(jobId, List.of())
			.stream()
			.filter((done) -> done.replayed() == replayed)
			.map(StepDone::step)
			.toList();
	}

	private record StepDone(String step, boolean replayed) {

	}

	@Override
	public void finished(ClaimedJob job, Completion completion, Duration queueWait, Duration execution) {
		List<Long> ids = this.recording.get();
		if (ids != null) {
			ids.add(job.id());
		}
	}

}
