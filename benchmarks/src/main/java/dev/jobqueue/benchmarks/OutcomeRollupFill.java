package dev.jobqueue.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Fills the per-minute outcome rollup of a benchmark's big table from its attempt rows
 * the way the migration that created the rollup does on an upgrade, with the migration's
 * own statements read from the store's jar: the index of attempts by outcome that the
 * schema before it had is made again first (untimed), then the migration's backfill and
 * the drop of that index run as they would (timed: what the migration costs on such a
 * table). A jar of the code before the rollup has no such migration: then there is
 * nothing to fill.
 *
 * @param outcomeIndex the statement that made the index of attempts by outcome
 * @param migration the migration's statements after its {@code CREATE TABLE}
 */
record OutcomeRollupFill(String outcomeIndex, List<String> migration) {

	static final String DELETE = "DELETE FROM job_outcome_minutes";

	/** SQLite's fill, or {@code null} when this jar has no rollup. */
	static OutcomeRollupFill sqlite() {
		return of("dev/jobqueue/sqlite/migration/V7__attempts_outcome_idx.sql",
				"dev/jobqueue/sqlite/migration/V13__outcome_minutes.sql");
	}

	/** PostgreSQL's fill, or {@code null} when this jar has no rollup. */
	static OutcomeRollupFill postgresql() {
		return of("dev/jobqueue/postgresql/migration/V3__attempts_outcome_idx.sql",
				"dev/jobqueue/postgresql/migration/V9__outcome_minutes.sql");
	}

	private static OutcomeRollupFill of(String indexMigration, String rollupMigration) {
		List<String> rollup = statements(rollupMigration);
		if (rollup == null) {
			return null;
		}
		List<String> index = statements(indexMigration);
		return new OutcomeRollupFill(index.stream().filter((sql) -> sql.startsWith("CREATE INDEX")).findFirst().get(),
				rollup.stream().filter((sql) -> !sql.startsWith("CREATE TABLE")).toList());
	}

	/**
	 * The statements of a migration without comments or a table prefix, or {@code null}
	 * when the jar has no such migration.
	 */
	static List<String> statements(String migration) {
		try (InputStream in = OutcomeRollupFill.class.getClassLoader().getResourceAsStream(migration)) {
			if (in == null) {
				return null;
			}
			String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
				.filter((line) -> !line.strip().startsWith("--"))
				.collect(Collectors.joining("\n"))
				.replace("${prefix}", "");
			return Arrays.stream(sql.split(";"))
				.map(String::strip)
				.filter((statement) -> !statement.isEmpty())
				.toList();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read " + migration, ex);
		}
	}

}
