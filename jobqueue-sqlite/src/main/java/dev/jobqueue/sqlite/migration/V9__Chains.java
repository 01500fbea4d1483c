package dev.jobqueue.sqlite.migration;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/**
 * Chains and dependencies (docs/chains.md): chain and dependency columns on the jobs, the
 * dependency table, and {@code waiting} among the statuses the status check allows.
 *
 * <p>
 * SQLite cannot alter a CHECK constraint, and rebuilding the jobs table would need
 * foreign keys off, which cannot change inside Flyway's transaction (and a rebuild copies
 * every row). A looser CHECK changes nothing stored on disk, so this follows SQLite's own
 * procedure for such changes (sqlite.org/lang_altertable.html, "making other kinds of
 * table schema changes"): edit the table's definition in {@code sqlite_schema} with
 * {@code writable_schema}, and bump {@code schema_version} so every open connection
 * reloads the schema. That takes a computed version number, hence a Java migration; its
 * statements are plain SQL below, for anyone who applies migrations by hand.
 */
public class V9__Chains extends BaseJavaMigration {

	@Override
	public void migrate(Context context) throws Exception {
		String prefix = context.getConfiguration().getPlaceholders().getOrDefault("prefix", "");
		Connection connection = context.getConnection();
		try (Statement statement = connection.createStatement()) {
			allowWaitingStatus(statement, prefix);
			for (String sql : statements(prefix)) {
				statement.execute(sql);
			}
		}
	}

	private static void allowWaitingStatus(Statement statement, String prefix) throws SQLException {
		int version;
		try (ResultSet rows = statement.executeQuery("PRAGMA schema_version")) {
			rows.next();
			version = rows.getInt(1);
		}
		statement.execute("PRAGMA writable_schema = ON");
		try {
			int changed = statement.executeUpdate(
					"UPDATE sqlite_schema SET sql = replace(sql, " + "'''succeeded'', ''failed'', ''cancelled''))', "
							+ "'''succeeded'', ''failed'', ''cancelled'', ''waiting''))') "
							+ "WHERE type = 'table' AND name = '" + prefix + "jobs' AND sql LIKE '%''cancelled''))%'");
			if (changed != 1) {
				throw new SQLException("The status check of table " + prefix + "jobs is not the one V1 created, so "
						+ "V9 cannot add 'waiting' to it; compare the table with V1__create_jobs.sql");
			}
			statement.execute("PRAGMA schema_version = " + (version + 1));
		}
		finally {
			statement.execute("PRAGMA writable_schema = OFF");
		}
	}

	static String[] statements(String p) {
		return new String[] {
				// The chain a job is a step of (its first step's id) and its step, 0
				// first.
				"ALTER TABLE " + p + "jobs ADD COLUMN chain_id INTEGER",
				"ALTER TABLE " + p + "jobs ADD COLUMN chain_index INTEGER",
				// Unfinished dependencies while waiting; 0 otherwise.
				"ALTER TABLE " + p + "jobs ADD COLUMN waiting_for INTEGER NOT NULL DEFAULT 0",
				// cancel, fail or run; NULL for a job that waits for nothing.
				"ALTER TABLE " + p + "jobs ADD COLUMN dependency_policy TEXT",
				"CREATE INDEX " + p + "jobs_chain_idx ON " + p + "jobs (chain_id, chain_index, id) "
						+ "WHERE chain_id IS NOT NULL",
				// One row per (waited-for job, waiting job): finishing a job finds its
				// dependents through the primary key, so a fan-in costs one probe per
				// child. settled = 1 once the waiting job counted the row (at enqueue
				// or when the dependency finished): a dependency that is retried and
				// finishes again is not counted twice.
				"CREATE TABLE " + p + "job_dependencies (" + "depends_on INTEGER NOT NULL REFERENCES " + p
						+ "jobs (id) ON DELETE CASCADE, " + "job_id INTEGER NOT NULL REFERENCES " + p
						+ "jobs (id) ON DELETE CASCADE, "
						+ "settled INTEGER NOT NULL DEFAULT 0 CHECK (settled IN (0, 1)), "
						+ "PRIMARY KEY (depends_on, job_id)) WITHOUT ROWID",
				"CREATE INDEX " + p + "job_dependencies_job_idx ON " + p + "job_dependencies (job_id, depends_on)" };
	}

}
