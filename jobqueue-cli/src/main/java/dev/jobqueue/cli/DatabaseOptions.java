package dev.jobqueue.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * Which queue the tool opens, as every command takes it: a SQLite file or a JDBC URL, and
 * the names the application gives the queue's tables.
 */
final class DatabaseOptions {

	@ArgGroup(exclusive = true, multiplicity = "1")
	Target target;

	@Option(names = "--user", description = "User of a server database (else the URL's).")
	String user;

	@Option(names = "--password",
			description = "That user's password; visible to others in the process list (ps): prefer the "
					+ "JOBQUEUE_PASSWORD environment variable or --password-file (else the URL's).")
	String password;

	@Option(names = "--password-file", paramLabel = "FILE",
			description = "A file holding that user's password (its first line).")
	Path passwordFile;

	@Option(names = "--table-prefix", defaultValue = "",
			description = "The application's jobqueue.table-prefix (default: none).")
	String tablePrefix;

	@Option(names = "--schema",
			description = "The application's jobqueue.postgresql.schema (PostgreSQL; default: public).")
	String schema;

	@Option(names = "--json", description = "Answer in JSON, for scripts.")
	boolean json;

	static final class Target {

		@Option(names = "--db", paramLabel = "FILE", description = "The queue's SQLite file.")
		Path file;

		@Option(names = "--url", paramLabel = "JDBC_URL",
				description = "The queue's JDBC URL: jdbc:sqlite:<file>, jdbc:postgresql://<host>/<db>, "
						+ "jdbc:mariadb:// or jdbc:mysql://<host>/<db>.")
		String url;

	}

	String url() {
		if (this.target.file == null) {
			return this.target.url;
		}
		if (this.target.file.toString().startsWith("jdbc:")) {
			// Taken as a path it would name (and migrate would create) a file in a folder
			// called "jdbc:...".
			throw CliException
				.usage("--db takes the path of a SQLite file, not a JDBC URL: pass the URL as " + "--url=<JDBC_URL>");
		}
		return "jdbc:sqlite:" + this.target.file.toAbsolutePath();
	}

	/**
	 * The password: {@code --password}, else {@code --password-file}'s first line, else
	 * {@code JOBQUEUE_PASSWORD}, else none (the URL's, if it has one).
	 */
	String password(JobQueueCli tool) {
		if (this.password != null && this.passwordFile != null) {
			throw CliException.usage("Pass the password once: --password-file=<file> or the JOBQUEUE_PASSWORD "
					+ "environment variable, not --password as well");
		}
		if (this.password != null) {
			return this.password;
		}
		if (this.passwordFile != null) {
			try {
				List<String> lines = Files.readAllLines(this.passwordFile, StandardCharsets.UTF_8);
				return lines.isEmpty() ? "" : lines.get(0);
			}
			catch (IOException ex) {
				throw CliException.usage("Cannot read --password-file=" + this.passwordFile + " (" + ex + "): pass a "
						+ "readable file holding the password on its first line");
			}
		}
		return tool.environment("JOBQUEUE_PASSWORD");
	}

	/** A warning for a password typed on the command line, or {@code null}. */
	String passwordWarning() {
		if (this.password == null) {
			return null;
		}
		return "jobqueue-cli: warning: --password is visible to other users of this machine in the process list "
				+ "(ps) and stays in the shell's history: set the JOBQUEUE_PASSWORD environment variable or pass "
				+ "--password-file=<file> instead";
	}

}
