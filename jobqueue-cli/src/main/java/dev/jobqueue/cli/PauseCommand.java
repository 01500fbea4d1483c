package dev.jobqueue.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import dev.jobqueue.core.EnqueueLimits;

/**
 * {@code pause TYPE}: no process claims the type's jobs until it is resumed.
 */
@Command(name = "pause", description = "Pauses a job type in every process: its jobs stay pending until resume. "
		+ "Exit code 1 when it was paused already.")
final class PauseCommand extends QueueCommand {

	@Parameters(index = "0", paramLabel = "TYPE", description = "The job type.")
	String type;

	@Override
	int run(QueueDatabase db, Output out) {
		requireType(this.type);
		boolean paused = db.queue().pause(this.type);
		return new ActionResult(this.type, "pause", paused, "paused",
				paused ? "Type '" + this.type + "' paused: no process claims its jobs until it is resumed"
						: "Type '" + this.type + "' was paused already; nothing changed")
			.report(out);
	}

	static void requireType(String type) {
		String problem = EnqueueLimits.typeProblem(type);
		if (problem != null) {
			throw CliException.usage(problem);
		}
	}

}
