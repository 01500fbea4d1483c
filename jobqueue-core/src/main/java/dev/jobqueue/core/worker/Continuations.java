package dev.jobqueue.core.worker;

import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.core.NewJobs;
import dev.jobqueue.core.store.NewJob;

/**
 * Checks the continuation a handler asks for ({@link JobRun#continueWith},
 * {@link JobRun#continueWithFanOut}) as enqueue would, with what a continuation may not
 * have on top. A bad one throws {@link IllegalArgumentException}, which fails the run.
 */
final class Continuations {

	private Continuations() {
	}

	/** One next step, the first of the chain after the current job. */
	static List<NewJob> next(NewJobs newJobs, JobRequest next, Instant now, String traceContext) {
		if (next == null) {
			throw new IllegalArgumentException("The next step is null: pass JobRequest.of(type, payload)");
		}
		return checked(() -> List.of(newJobs.validate(next, now, traceContext).withChainIndex(1)));
	}

	/** Children that run at once and a join that runs when they are all done. */
	static List<NewJob> fanOut(NewJobs newJobs, List<JobRequest> children, JobRequest join, Instant now,
			String traceContext) {
		if (children == null || join == null) {
			throw new IllegalArgumentException("The children and the join of a fan-out must not be null");
		}
		return checked(() -> newJobs.fanOut(children, join, now, traceContext, 1));
	}

	private static List<NewJob> checked(Supplier<List<NewJob>> validation) {
		List<NewJob> jobs;
		try {
			jobs = validation.get();
		}
		catch (JobQueueException ex) {
			throw new IllegalArgumentException(ex.getMessage(), ex);
		}
		for (NewJob job : jobs) {
			if (!job.after().isEmpty()) {
				throw new IllegalArgumentException("A continuation ('" + job.type() + "') cannot wait for other jobs "
						+ "(after(...)): enqueue it with jobQueue.enqueue(request.after(...)) instead, or use "
						+ "continueWithFanOut for children and a join");
			}
			if (job.dedupKey() != null) {
				throw new IllegalArgumentException("A continuation ('" + job.type() + "') cannot have a dedup key: "
						+ "the queue creates it exactly once already");
			}
		}
		return jobs;
	}

}
