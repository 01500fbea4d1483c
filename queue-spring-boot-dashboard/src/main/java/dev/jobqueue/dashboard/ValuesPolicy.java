package dev.jobqueue.dashboard;

import java.security.Principal;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;

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
		return switch (this.showValues) {
			case ALWAYS -> true;
			case NEVER -> false;
			case WHEN_AUTHORIZED -> {
				Principal principal = request.getUserPrincipal();
				yield principal != null
						&& (this.roles.isEmpty() || this.roles.stream().anyMatch(request::isUserInRole));
			}
		};
	}

	/**
	 * As written in the properties: {@code never}, {@code when-authorized} or
	 * {@code always}.
	 */
	public String describe() {
		return this.showValues.name().toLowerCase(Locale.ROOT).replace('_', '-');
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
