package dev.jobqueue.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.jobqueue.jdbc.SchemaVersions;

/**
 * {@code migrate}: applies the queue's migrations, as the application does at start-up,
 * for teams whose applications run with
 * {@code jobqueue.datasource.initialize-schema=never}; {@code --verify} only checks.
 */
@Command(name = "migrate",
		description = "Applies the queue's schema migrations (creating the queue's tables in an "
				+ "empty database), as the application does at start-up. With --verify, only checks: exit code 1 when "
				+ "migrations are pending. A schema newer than this tool is refused (exit code 3).")
final class MigrateCommand extends QueueCommand {

	@Option(names = "--verify", description = "Change nothing: say whether the schema is up to date.")
	boolean verify;

	/**
	 * The schema before and after.
	 *
	 * @param before the version applied before, or {@code null} for none
	 * @param after the version applied now
	 * @param known the newest version this tool knows
	 * @param pending migrations not applied
	 * @param applied whether this run applied any
	 */
	record Migration(String before, String after, String known, int pending, boolean applied) {

	}

	@Override
	QueueDatabase.Need need() {
		// Verifying changes nothing, so it needs a queue to look at: the store's pool
		// would
		// create a missing SQLite file.
		return this.verify ? QueueDatabase.Need.ANY_QUEUE : QueueDatabase.Need.ANYTHING;
	}

	@Override
	int run(QueueDatabase db, Output out) {
		SchemaVersions before = db.versions();
		if (this.verify) {
			Migration state = new Migration(before.applied(), before.applied(), before.known(), before.pending(),
					false);
			if (out.json()) {
				out.json(state);
			}
			else if (before.pending() == 0) {
				out.line("Queue %s is up to date: schema version %s", db.description(), before.applied());
			}
			else {
				out.line("Queue %s is at schema version %s; %d migration(s) pending, up to %s", db.description(),
						(before.applied() != null) ? before.applied() : "none (no queue yet)", before.pending(),
						before.known());
			}
			return (before.pending() == 0) ? ExitCodes.OK : ExitCodes.NOTHING;
		}
		db.storage().initializeSchema();
		SchemaVersions after = db.readVersions();
		Migration migration = new Migration(before.applied(), after.applied(), after.known(), after.pending(),
				before.pending() > 0);
		if (out.json()) {
			out.json(migration);
		}
		else if (before.pending() == 0) {
			out.line("Queue %s was up to date: schema version %s", db.description(), after.applied());
		}
		else {
			out.line("Queue %s migrated from schema version %s to %s (%d migration(s))", db.description(),
					(before.applied() != null) ? before.applied() : "none", after.applied(), before.pending());
		}
		return ExitCodes.OK;
	}

}
