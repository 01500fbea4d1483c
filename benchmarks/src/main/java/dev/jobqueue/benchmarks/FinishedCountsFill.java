package dev.jobqueue.benchmarks;

import java.util.List;

/**
 * Counts the finished jobs of a benchmark's big table into {@code job_finished_counts}
 * the way the migration that created the table does on an upgrade, with the migration's
 * own statements read from the store's jar (the {@code CREATE TABLE} left out): run after
 * {@link #DELETE} and timed, they say what the migration costs on such a table. A jar of
 * the code before the counts has no such migration: then there is nothing to fill.
 *
 * @param migration the migration's statements after its {@code CREATE TABLE}
 */
record FinishedCountsFill(List<String> migration) {

	static final String DELETE = "DELETE FROM job_finished_counts";

	/** SQLite's fill, or {@code null} when this jar keeps no counts. */
	static FinishedCountsFill sqlite() {
		return of("dev/jobqueue/sqlite/migration/V16__finished_counts.sql");
	}

	/** PostgreSQL's fill, or {@code null} when this jar keeps no counts. */
	static FinishedCountsFill postgresql() {
		return of("dev/jobqueue/postgresql/migration/V12__finished_counts.sql");
	}

	private static FinishedCountsFill of(String migration) {
		List<String> statements = OutcomeRollupFill.statements(migration);
		return (statements != null)
				? new FinishedCountsFill(statements.stream().filter((sql) -> !sql.startsWith("CREATE TABLE")).toList())
				: null;
	}

}
