package dev.jobqueue.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A subcommand on one queue database: opens it (see {@link QueueDatabase}), runs, closes
 * it, and answers the exit code.
 */
abstract class QueueCommand implements Callable<Integer> {

	@Mixin
	DatabaseOptions database;

	@Spec
	CommandSpec spec;

	@Override
	public final Integer call() {
		String warning = this.database.passwordWarning();
		if (warning != null) {
			this.spec.commandLine().getErr().println(warning);
			this.spec.commandLine().getErr().flush();
		}
		Output out = new Output(this.spec.commandLine().getOut(), this.database.json);
		try (QueueDatabase db = QueueDatabase.open(this.database, need(),
				(JobQueueCli) this.spec.root().userObject())) {
			return run(db, out);
		}
		finally {
			out.flush();
		}
	}

	/** What the command needs of the schema; the current one by default. */
	QueueDatabase.Need need() {
		return QueueDatabase.Need.CURRENT;
	}

	/**
	 * @return the exit code (see {@link ExitCodes})
	 * @throws CliException for an answer in one line and an exit code
	 */
	abstract int run(QueueDatabase db, Output out);

}
