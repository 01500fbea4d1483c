package dev.jobqueue.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Fills the per-minute outcome rollup of a benchmark's big table from its attempt rows,
 * with the backfill statement of the migration that created the rollup (read from the
 * store's jar), so the table a benchmark seeds with set-based inserts is what the queue
 * would have written. A jar of the code before the rollup has no such migration: then
 * there is nothing to fill.
 */
final class OutcomeRollupFill {

	static final String SQLITE = "dev/jobqueue/sqlite/migration/V13__outcome_minutes.sql";

	static final String POSTGRESQL = "dev/jobqueue/postgresql/migration/V9__outcome_minutes.sql";

	static final String DELETE = "DELETE FROM job_outcome_minutes";

	private OutcomeRollupFill() {
	}

	/**
	 * The migration's backfill statement (its {@code INSERT}) without a table prefix, or
	 * {@code null} when this jar's store has no rollup.
	 */
	static String backfill(String migration) {
		try (InputStream in = OutcomeRollupFill.class.getClassLoader().getResourceAsStream(migration)) {
			if (in == null) {
				return null;
			}
			String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			int insert = sql.indexOf("INSERT INTO ${prefix}job_outcome_minutes");
			if (insert < 0) {
				throw new IllegalStateException("No backfill statement in " + migration);
			}
			return sql.substring(insert).replace("${prefix}", "").strip().replaceFirst(";$", "");
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read " + migration, ex);
		}
	}

}
