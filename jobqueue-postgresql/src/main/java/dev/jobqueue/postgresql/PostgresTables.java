package dev.jobqueue.postgresql;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The queue's tables in one schema under an optional prefix, so several queues (or an
 * application's own tables) can share one database. Names are folded to lower case, as
 * PostgreSQL folds unquoted names, so the migrations and the statements always mean the
 * same tables.
 */
public final class PostgresTables {

	public static final String DEFAULT_SCHEMA = "public";

	private static final String NAME = "[a-z_][a-z0-9_]*";

	private final String schema;

	private final String prefix;

	private final Map<String, PgSql> parsed = new ConcurrentHashMap<>();

	public PostgresTables(String schema, String prefix) {
		String schemaName = (schema != null && !schema.isBlank()) ? schema.toLowerCase(Locale.ROOT) : DEFAULT_SCHEMA;
		if (!schemaName.matches(NAME) || schemaName.length() > 63) {
			throw new IllegalArgumentException("jobqueue.postgresql.schema '" + schema
					+ "' is not usable: use up to 63 "
					+ "letters, digits and underscores, starting with a letter or underscore (for example 'jobqueue')");
		}
		String prefixName = (prefix != null) ? prefix.toLowerCase(Locale.ROOT) : "";
		if (!prefixName.isEmpty() && (!prefixName.matches(NAME) || prefixName.length() > 30)) {
			throw new IllegalArgumentException("jobqueue.table-prefix '" + prefix + "' is not usable: use up to 30 "
					+ "letters, digits and underscores, starting with a letter or underscore (for example 'jq_')");
		}
		this.schema = schemaName;
		this.prefix = prefixName;
	}

	public String schema() {
		return this.schema;
	}

	public String prefix() {
		return this.prefix;
	}

	/** A table or index name qualified by the schema, for statements. */
	public String qualified(String name) {
		return this.schema + "." + this.prefix + name;
	}

	public String jobs() {
		return qualified("jobs");
	}

	public String schemaHistory() {
		return this.prefix + "jobqueue_schema_history";
	}

	/**
	 * The channel of this queue's notifications: one per schema and prefix, so two queues
	 * in one database do not wake each other. At most 63 characters, PostgreSQL's limit
	 * for a name.
	 */
	public String channel() {
		String channel = "jobqueue_" + this.schema + "_" + this.prefix;
		return (channel.length() <= 63) ? channel : "jobqueue_" + Integer.toHexString(channel.hashCode());
	}

	/**
	 * Replaces {@code {jobs}}, {@code {attempts}}, {@code {events}},
	 * {@code {dependencies}}, {@code {workers}}, {@code {schedules}}, {@code {paused}}
	 * and {@code {housekeeping}} by their qualified names and parses the {@code :name}
	 * parameters, once per template.
	 */
	PgSql sql(String template) {
		return this.parsed.computeIfAbsent(template,
				(key) -> PgSql.parse(key.replace("{jobs}", jobs())
					.replace("{attempts}", qualified("job_attempts"))
					.replace("{events}", qualified("job_events"))
					.replace("{dependencies}", qualified("job_dependencies"))
					.replace("{workers}", qualified("job_workers"))
					.replace("{schedules}", qualified("job_schedules"))
					.replace("{paused}", qualified("job_paused_types"))
					.replace("{housekeeping}", qualified("job_housekeeping"))));
	}

}
