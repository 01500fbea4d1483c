package dev.jobqueue.sqlite;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The queue's table and index names under an optional prefix, so several queues (or an
 * application's own tables) can share one file.
 */
public final class TableNames {

	private final String prefix;

	private final Map<String, String> expanded = new ConcurrentHashMap<>();

	public TableNames(String prefix) {
		String value = (prefix != null) ? prefix : "";
		if (!value.isEmpty() && !value.matches("[A-Za-z_][A-Za-z0-9_]{0,29}")) {
			throw new IllegalArgumentException("jobqueue.table-prefix '" + value + "' is not usable: use up to 30 "
					+ "letters, digits and underscores, starting with a letter or underscore (for example 'jq_')");
		}
		this.prefix = value;
	}

	public String prefix() {
		return this.prefix;
	}

	public String jobs() {
		return this.prefix + "jobs";
	}

	public String attempts() {
		return this.prefix + "job_attempts";
	}

	public String events() {
		return this.prefix + "job_events";
	}

	public String dependencies() {
		return this.prefix + "job_dependencies";
	}

	public String workers() {
		return this.prefix + "job_workers";
	}

	public String schedules() {
		return this.prefix + "job_schedules";
	}

	public String pausedTypes() {
		return this.prefix + "job_paused_types";
	}

	public String schemaHistory() {
		return this.prefix + "jobqueue_schema_history";
	}

	/**
	 * Expands the table names of {@code template} and parses its {@code :name}
	 * parameters.
	 */
	NamedSql sql(String template) {
		return NamedSql.parse(expand(template));
	}

	/**
	 * As {@link #sql(String)}, with list parameters of the given sizes (see
	 * {@link NamedSql#parse(String, Map)}).
	 */
	NamedSql sql(String template, Map<String, Integer> listSizes) {
		return NamedSql.parse(expand(template), listSizes);
	}

	/**
	 * Replaces {@code {jobs}}, {@code {attempts}}, {@code {events}},
	 * {@code {dependencies}}, {@code {workers}}, {@code {schedules}}, {@code {paused}}
	 * and {@code {p}}.
	 */
	public String expand(String template) {
		return this.expanded.computeIfAbsent(template,
				(key) -> key.replace("{jobs}", jobs())
					.replace("{attempts}", attempts())
					.replace("{events}", events())
					.replace("{dependencies}", dependencies())
					.replace("{workers}", workers())
					.replace("{schedules}", schedules())
					.replace("{paused}", pausedTypes())
					.replace("{p}", this.prefix));
	}

}
