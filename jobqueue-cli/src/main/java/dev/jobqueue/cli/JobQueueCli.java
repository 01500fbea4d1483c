package dev.jobqueue.cli;

import java.io.PrintWriter;
import java.util.Map;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import dev.jobqueue.JobQueueException;

/**
 * {@code jobqueue-cli}: operates a queue's database directly, with or without the
 * application running. See docs/guide/command-line.md.
 */
@Command(name = "jobqueue-cli", mixinStandardHelpOptions = true, versionProvider = JobQueueCli.Version.class,
		description = "Operates a jobqueue database directly: a SQLite file, PostgreSQL or MySQL/MariaDB.",
		subcommands = { StatusCommand.class, JobsCommand.class, ShowCommand.class, RetryCommand.class,
				CancelCommand.class, DeleteCommand.class, SearchCommand.class, PauseCommand.class, ResumeCommand.class,
				PurgeCommand.class, MigrateCommand.class, DoctorCommand.class },
		exitCodeListHeading = "%nExit codes:%n",
		exitCodeList = { "0:done, nothing wrong",
				"1:doctor found a problem, or nothing matched (no such job, an "
						+ "action that did not apply, a filter that matched no job, an empty list or search, a purge "
						+ "that deleted nothing)",
				"2:bad usage (unknown option, value out of range, type name over the bound, a bulk action over "
						+ "1,000,000 jobs without --yes)",
				"3:database unusable: unreachable, locked, not a queue database, schema newer than this tool "
						+ "(or older, until migrate)" })
public final class JobQueueCli {

	/** The environment the tool reads ({@code JOBQUEUE_PASSWORD}). */
	private final Map<String, String> environment;

	JobQueueCli(Map<String, String> environment) {
		this.environment = environment;
	}

	public static void main(String[] args) {
		System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true), System.getenv()));
	}

	/**
	 * Runs the tool as {@link #main} does, answering the exit code instead of exiting: it
	 * writes to {@code out} and {@code err} only and reads the environment from
	 * {@code environment}, so it can run in-process.
	 */
	static int run(String[] args, PrintWriter out, PrintWriter err, Map<String, String> environment) {
		CommandLine commandLine = new CommandLine(new JobQueueCli(environment));
		commandLine.setOut(out);
		commandLine.setErr(err);
		commandLine.setExitCodeExceptionMapper(JobQueueCli::exitCode);
		commandLine.setExecutionExceptionHandler((ex, line, parsed) -> {
			line.getErr().println("jobqueue-cli: " + message(ex));
			line.getErr().flush();
			return exitCode(ex);
		});
		commandLine.setParameterExceptionHandler((ex, args2) -> {
			CommandLine line = ex.getCommandLine();
			line.getErr()
				.println("jobqueue-cli: " + ex.getMessage() + " (see '" + line.getCommandSpec().qualifiedName()
						+ " --help')");
			line.getErr().flush();
			return ExitCodes.USAGE;
		});
		if (args.length == 0) {
			commandLine.usage(err);
			return ExitCodes.USAGE;
		}
		return commandLine.execute(args);
	}

	String environment(String name) {
		return this.environment.get(name);
	}

	private static String message(Exception ex) {
		if (ex instanceof CliException || ex instanceof JobQueueException || ex instanceof IllegalArgumentException) {
			return Failures.oneLine(ex);
		}
		return ex.getClass().getSimpleName() + ": " + Failures.oneLine(ex);
	}

	private static int exitCode(Throwable ex) {
		if (ex instanceof CliException cli) {
			return cli.exitCode();
		}
		if (ex instanceof IllegalArgumentException) {
			return ExitCodes.USAGE;
		}
		// The store's failures (a database locked past the waits, a server gone) and the
		// rest.
		return ExitCodes.DATABASE;
	}

	static final class Version implements CommandLine.IVersionProvider {

		@Override
		public String[] getVersion() {
			String version = JobQueueCli.class.getPackage().getImplementationVersion();
			return new String[] { "jobqueue-cli " + ((version != null) ? version : "(development build)") };
		}

	}

}
