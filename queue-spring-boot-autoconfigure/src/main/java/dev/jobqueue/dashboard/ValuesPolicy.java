package dev.jobqueue.dashboard;

import java.security.Principal;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * When the dashboard shows payloads, results, error and event details, dedup keys and
 * progress messages: the {@code jobqueue} endpoint's policy
 * ({@code management.endpoint.jobqueue.show-values} and {@code roles}), so that one
 * setting decides what a person sees of a job, whether through the endpoint or through
 * the dashboard. Read from the environment rather than from the endpoint's properties, so
 * the dashboard needs no actuator.
 *
 * @param showValues when values are shown
 * @param roles roles that see values with {@link ShowValues#WHEN_AUTHORIZED}; empty for
 * any signed-in user
 */
record ValuesPolicy(ShowValues showValues, Set<String> roles) {

	static final String SHOW_VALUES = "management.endpoint.jobqueue.show-values";

	static final String ROLES = "management.endpoint.jobqueue.roles";

	ValuesPolicy {
		Objects.requireNonNull(showValues, "'showValues' must not be null");
		roles = Set.copyOf(roles);
	}

	static ValuesPolicy of(Environment environment) {
		Binder binder = Binder.get(environment);
		return new ValuesPolicy(binder.bind(SHOW_VALUES, ShowValues.class).orElse(ShowValues.NEVER),
				binder.bind(ROLES, Bindable.setOf(String.class)).orElse(Set.of()));
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
	String describe() {
		return this.showValues.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * When values that may hold personal data are shown; the values of Boot's
	 * {@code Show}.
	 */
	enum ShowValues {

		/** Never. */
		NEVER,

		/** To signed-in users (with one of the configured roles, if any). */
		WHEN_AUTHORIZED,

		/** Always. */
		ALWAYS

	}

}
