package dev.jobqueue.dashboard;

import java.util.Objects;
import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;

import dev.jobqueue.views.ValuePolicy;

/**
 * When the dashboard shows payloads, results, error and event details, dedup keys and
 * progress messages: the {@code jobqueue} endpoint's policy
 * ({@code management.endpoint.jobqueue.show-values} and {@code roles}), so that one
 * setting decides what a person sees of a job, whether through the endpoint or through
 * the dashboard. Its own type, not the actuator's {@code Show}, so the dashboard needs no
 * actuator.
 *
 * @param showValues when values are shown
 * @param roles roles that see values with {@link ShowValues#WHEN_AUTHORIZED}; empty for
 * any signed-in user
 */
public record ValuesPolicy(ShowValues showValues, Set<String> roles) {

	public ValuesPolicy {
		Objects.requireNonNull(showValues, "'showValues' must not be null");
		roles = Set.copyOf((roles != null) ? roles : Set.of());
	}

	/**
	 * Whether the person behind {@code request} sees values, judged from its principal
	 * and roles.
	 */
	boolean shown(HttpServletRequest request) {
		return ValuePolicy.of(ValuePolicy.Show.valueOf(this.showValues.name()), this.roles)
			.forCaller(request.getUserPrincipal() != null, request::isUserInRole)
			.shown();
	}

	/**
	 * As written in the properties: {@code never}, {@code when-authorized} or
	 * {@code always}.
	 */
	public String describe() {
		return ValuePolicy.of(ValuePolicy.Show.valueOf(this.showValues.name()), this.roles).describe();
	}

	/**
	 * When values that may hold personal data are shown; the values of Boot's
	 * {@code Show}.
	 */
	public enum ShowValues {

		/** Never. */
		NEVER,

		/** To signed-in users (with one of the configured roles, if any). */
		WHEN_AUTHORIZED,

		/** Always. */
		ALWAYS

	}

}
