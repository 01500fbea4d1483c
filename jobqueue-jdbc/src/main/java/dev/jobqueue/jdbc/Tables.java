package dev.jobqueue.jdbc;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The queue's table and index names under an optional prefix (and, where the database has
 * schemas, in one schema), so several queues or an application's own tables can share a
 * database, and the statements that use them. On a database that folds unquoted names to
 * lower case (PostgreSQL), the names are folded here too, so the migrations and the
 * statements always mean the same tables.
 *
 * <p>
 * Statements name tables {@code {jobs}}, {@code {attempts}}, {@code {events}},
 * {@code {dependencies}}, {@code {workers}}, {@code {schedules}}, {@code {paused}},
 * {@code {housekeeping}}, {@code {steps}}, {@code {outcome_minutes}},
 * {@code {finished_counts}} and {@code {rate_starts}}; {@code {p}} is the bare prefix
 * (for index names). What is left in braces is the dialect's (see {@link Dialect}).
 */
public final class Tables {

	/** The queue's tables, without the prefix. */
	public static final List<String> NAMES = List.of("jobs", "job_attempts", "job_events", "job_dependencies",
			"job_workers", "job_housekeeping", "job_schedules", "job_paused_types", "job_steps", "job_outcome_minutes",
			"job_finished_counts", "job_rate_starts");

	private static final String NAME = "[a-z_][a-z0-9_]*";

	private final String schema;

	private final String prefix;

	private final Dialect dialect;

	private final Map<String, Sql> parsed = new ConcurrentHashMap<>();

	private final Map<String, String> expanded = new ConcurrentHashMap<>();

	/**
	 * @param schema the schema the tables are in, or {@code null} for the connection's
	 * own (for databases without schemas)
	 * @param prefix the prefix of every table and index name; {@code null} or empty for
	 * none
	 * @throws IllegalArgumentException saying how to fix a name that cannot be used
	 */
	public Tables(String schema, String prefix, Dialect dialect) {
		this.dialect = Objects.requireNonNull(dialect, "'dialect' must not be null");
		boolean fold = dialect.foldsNamesToLowerCase();
		if (schema != null && (!schema.toLowerCase(Locale.ROOT).matches(NAME) || schema.length() > 63)) {
			throw new IllegalArgumentException("jobqueue.postgresql.schema '" + schema
					+ "' is not usable: use up to 63 "
					+ "letters, digits and underscores, starting with a letter or underscore (for example 'jobqueue')");
		}
		String prefixName = (prefix != null) ? prefix : "";
		if (!prefixName.isEmpty() && (!prefixName.toLowerCase(Locale.ROOT).matches(NAME) || prefixName.length() > 30)) {
			throw new IllegalArgumentException("jobqueue.table-prefix '" + prefix + "' is not usable: use up to 30 "
					+ "letters, digits and underscores, starting with a letter or underscore (for example 'jq_')");
		}
		this.schema = (schema != null && fold) ? schema.toLowerCase(Locale.ROOT) : schema;
		this.prefix = fold ? prefixName.toLowerCase(Locale.ROOT) : prefixName;
	}

	/** The schema of the tables, or {@code null} for the connection's own. */
	public String schema() {
		return this.schema;
	}

	public String prefix() {
		return this.prefix;
	}

	public Dialect dialect() {
		return this.dialect;
	}

	/** The queue's tables ({@link #NAMES}) with the prefix, not qualified. */
	public List<String> names() {
		return NAMES.stream().map((table) -> this.prefix + table).toList();
	}

	/** A table or index name with the prefix, qualified by the schema if there is one. */
	public String qualified(String name) {
		return (this.schema != null) ? this.schema + "." + this.prefix + name : this.prefix + name;
	}

	public String jobs() {
		return qualified("jobs");
	}

	public String attempts() {
		return qualified("job_attempts");
	}

	public String events() {
		return qualified("job_events");
	}

	/** Flyway's history table of the queue's migrations (in the schema, unqualified). */
	public String schemaHistory() {
		return this.prefix + "jobqueue_schema_history";
	}

	/**
	 * Expands the table names of {@code template}, then the dialect's fragments, once per
	 * template.
	 */
	public String expand(String template) {
		return this.expanded.computeIfAbsent(template,
				(key) -> this.dialect.expand(key.replace("{jobs}", jobs())
					.replace("{attempts}", attempts())
					.replace("{events}", events())
					.replace("{dependencies}", qualified("job_dependencies"))
					.replace("{workers}", qualified("job_workers"))
					.replace("{schedules}", qualified("job_schedules"))
					.replace("{paused}", qualified("job_paused_types"))
					.replace("{housekeeping}", qualified("job_housekeeping"))
					.replace("{steps}", qualified("job_steps"))
					.replace("{outcome_minutes}", qualified("job_outcome_minutes"))
					.replace("{finished_counts}", qualified("job_finished_counts"))
					.replace("{rate_starts}", qualified("job_rate_starts"))
					.replace("{p}", this.prefix)));
	}

	/** Expands {@code template} and parses its {@code :name} parameters, once. */
	public Sql sql(String template) {
		return this.parsed.computeIfAbsent(template, (key) -> Sql.parse(expand(key), this.dialect, Map.of()));
	}

	/**
	 * As {@link #sql(String)}, with list parameters of the given sizes (see
	 * {@link Sql#parse}); not kept, so the caller keeps what it reuses.
	 */
	public Sql sql(String template, Map<String, Integer> listSizes) {
		return Sql.parse(expand(template), this.dialect, listSizes);
	}

}
