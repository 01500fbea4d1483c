package dev.jobqueue.core.worker;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.JobFailedException;
import dev.jobqueue.JobStep;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.JobStore;

/**
 * What one run knows of its job's durable steps: the names it used so far, and the steps
 * recorded by this and earlier runs, read from the store at the run's first step. A
 * handler may call steps from threads of its own, so every method is synchronized; the
 * store is read outside the lock.
 */
final class RunSteps {

	private final ClaimedJob job;

	private final JobStore store;

	/** The job's recorded steps by name, read at this run's first step. */
	private Map<String, JobStep> recorded;

	private final Set<String> usedNames = new HashSet<>();

	RunSteps(ClaimedJob job, JobStore store) {
		this.job = job;
		this.store = store;
	}

	/** Notes that this run uses {@code name}; a name runs once per run. */
	synchronized void use(String name) {
		if (!this.usedNames.add(name)) {
			throw new JobFailedException(ErrorCodes.STEP_NAME,
					"Step '" + name + "' of job " + this.job.id() + " (" + this.job.type()
							+ ") was called twice in one run: give each step of a "
							+ "handler its own name (add an index for steps in a loop)",
					false);
		}
	}

	/**
	 * The step recorded under {@code name} by this or an earlier run of the job, or
	 * {@code null}; the job's steps are read once, at this run's first step.
	 */
	JobStep recorded(String name) {
		synchronized (this) {
			if (this.recorded != null) {
				return this.recorded.get(name);
			}
		}
		Map<String, JobStep> read = new LinkedHashMap<>();
		for (JobStep step : this.store.steps(this.job.id())) {
			read.put(step.name(), step);
		}
		synchronized (this) {
			if (this.recorded == null) {
				this.recorded = read;
			}
			return this.recorded.get(name);
		}
	}

	/**
	 * Where a step recorded now goes among the job's steps: after every step the job has
	 * (read at this run's first step, and recorded since).
	 */
	synchronized int nextPosition() {
		int last = 0;
		for (JobStep step : this.recorded.values()) {
			last = Math.max(last, step.position());
		}
		return last + 1;
	}

	synchronized void recorded(String name, JobStep step) {
		this.recorded.put(name, step);
	}

}
