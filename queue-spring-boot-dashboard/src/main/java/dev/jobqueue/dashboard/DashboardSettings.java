package dev.jobqueue.dashboard;

import java.time.Duration;
import java.util.Objects;

/**
 * How the dashboard is served, built by its auto-configuration from
 * {@code jobqueue.dashboard.*} and the endpoint's values policy.
 *
 * @param path where the dashboard lives on the application's server: starts with a slash,
 * without a trailing one (except for {@code /} itself)
 * @param readOnly whether it only shows the queue (no retry, cancel, pause or resume)
 * @param refreshInterval how often an open page brings itself up to date
 * @param values when payloads, results and error details are shown
 */
public record DashboardSettings(String path, boolean readOnly, Duration refreshInterval, ValuesPolicy values) {

	/** Where the dashboard lives when no path is given. */
	public static final String DEFAULT_PATH = "/jobqueue";

	/**
	 * Takes {@code path} as written ({@code ops/queue/}, blank for the default) and keeps
	 * it in one form.
	 */
	public DashboardSettings {
		path = normalize(path);
		Objects.requireNonNull(refreshInterval, "'refreshInterval' must not be null");
		Objects.requireNonNull(values, "'values' must not be null");
	}

	private static String normalize(String path) {
		String value = (path == null || path.isBlank()) ? DEFAULT_PATH : path.trim();
		value = value.startsWith("/") ? value : "/" + value;
		while (value.length() > 1 && value.endsWith("/")) {
			value = value.substring(0, value.length() - 1);
		}
		return value;
	}

	/** The prefix of the dashboard's URLs: its path, or nothing when it is {@code /}. */
	String base() {
		return this.path.equals("/") ? "" : this.path;
	}

}
