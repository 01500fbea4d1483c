package dev.jobqueue.cli;

import java.nio.file.Path;

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
			description = "That user's password (else the URL's, or the JOBQUEUE_PASSWORD " + "environment variable).")
	String password;

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

	String password(JobQueueCli tool) {
		return (this.password != null) ? this.password : tool.environment("JOBQUEUE_PASSWORD");
	}

}
