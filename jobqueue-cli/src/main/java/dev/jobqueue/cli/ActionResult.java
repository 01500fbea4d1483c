package dev.jobqueue.cli;

import java.util.Optional;

import dev.jobqueue.Job;

/**
 * The outcome of a write, in the shape of the endpoint's.
 *
 * @param target the job id or the job type
 * @param action {@code retry}, {@code cancel}, {@code pause} or {@code resume}
 * @param applied whether anything changed
 * @param status the job's status now, or the type's ({@code paused} or {@code active})
 * @param message what happened, or why nothing did
 */
record ActionResult(String target, String action, boolean applied, String status, String message) {

	/** Prints the result and answers the exit code: 1 when nothing changed. */
	int report(Output out) {
		if (out.json()) {
			out.json(this);
		}
		else {
			out.line(this.message);
		}
		return this.applied ? ExitCodes.OK : ExitCodes.NOTHING;
	}

	/**
	 * The result of a write on one job.
	 * @param applied whether the store applied it
	 * @param now the job as it is after the write
	 * @param done what happened when it applied ("retried: pending again")
	 * @param refused why it does not apply to a job in its status
	 * @throws CliException with exit code 1 when there is no such job
	 */
	static ActionResult ofJob(long id, String action, boolean applied, Optional<Job> now, String done, String refused) {
		Job job = now.orElseThrow(() -> CliException.nothing("No job " + id));
		String status = job.status().dbValue();
		String message = applied ? "Job " + id + " " + done + " (now " + status + ")"
				: "Job " + id + " is " + status + ": " + refused + "; nothing changed";
		return new ActionResult(Long.toString(id), action, applied, status, message);
	}

}
