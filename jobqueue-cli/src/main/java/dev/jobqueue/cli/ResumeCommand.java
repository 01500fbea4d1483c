package dev.jobqueue.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code resume TYPE}: the type's jobs are claimed again.
 */
@Command(name = "resume", description = "Resumes a paused job type. Exit code 1 when it was not paused.")
final class ResumeCommand extends QueueCommand {

	@Parameters(index = "0", paramLabel = "TYPE", description = "The job type.")
	String type;

	@Override
	int run(QueueDatabase db, Output out) {
		PauseCommand.requireType(this.type);
		boolean resumed = db.queue().resume(this.type);
		return new ActionResult(this.type, "resume", resumed, "active",
				resumed ? "Type '" + this.type + "' resumed: its jobs are claimed again"
						: "Type '" + this.type + "' was not paused; nothing changed")
			.report(out);
	}

}
