package dev.jobqueue.dashboard.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the queue's dashboard. Which values it shows is not among them: it follows
 * the endpoint's {@code management.endpoint.jobqueue.show-values} and {@code roles}
 * ({@link dev.jobqueue.dashboard.ValuesPolicy}).
 */
@ConfigurationProperties("jobqueue.dashboard")
public class DashboardProperties {

	/**
	 * Whether the dashboard is served (needs a servlet web application with Spring MVC).
	 */
	private boolean enabled;

	/**
	 * Path of the dashboard on the application's web server.
	 */
	private String path = "/jobqueue";

	/**
	 * Whether the dashboard only shows the queue. Retry, cancel, pause and resume need it
	 * off.
	 */
	private boolean readOnly = true;

	/**
	 * How often an open page brings itself up to date.
	 */
	private Duration refreshInterval = Duration.ofSeconds(3);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

	public boolean isReadOnly() {
		return this.readOnly;
	}

	public void setReadOnly(boolean readOnly) {
		this.readOnly = readOnly;
	}

	public Duration getRefreshInterval() {
		return this.refreshInterval;
	}

	public void setRefreshInterval(Duration refreshInterval) {
		this.refreshInterval = refreshInterval;
	}

}
