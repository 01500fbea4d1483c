package dev.jobqueue.autoconfigure.actuate;

import java.util.HashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code jobqueue} endpoint, bound where Boot binds its own endpoints'
 * ({@code env}, {@code configprops}).
 */
@ConfigurationProperties("management.endpoint.jobqueue")
public class QueueEndpointProperties {

	/**
	 * When to show payloads, results, error details, event details and dedup keys of
	 * jobs. Shown values are cut to jobqueue.observability.payload-preview characters.
	 */
	private Show showValues = Show.NEVER;

	/**
	 * Roles that may see values when show-values is when-authorized. Not set: any
	 * authenticated user.
	 */
	private final Set<String> roles = new HashSet<>();

	public Show getShowValues() {
		return this.showValues;
	}

	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	public Set<String> getRoles() {
		return this.roles;
	}

}
