package dev.jobqueue.views;

import java.util.Collection;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * Whether a caller sees the values of jobs (payloads, results, error details and stack
 * traces, event details, dedup keys, progress messages) and how hidden values read. The
 * one place that decides it: the actuator endpoint
 * ({@code management.endpoint.jobqueue.show-values} and {@code roles}), the dashboard
 * (which follows the same setting) and the command line all pass a policy to
 * {@link QueueViews}, which hands back views already shown or hidden by it.
 * <p>
 * A policy as configured ({@link #of}) may depend on the caller; {@link #forCaller}
 * settles it into {@link #SHOWN} or {@link #HIDDEN} for one caller. A policy that still
 * depends on the caller hides values.
 */
public final class ValuePolicy {

	/** What a hidden value reads, as Boot's sanitizer writes it. */
	public static final String HIDDEN_VALUE = "******";

	/** Values are shown. */
	public static final ValuePolicy SHOWN = new ValuePolicy(Show.ALWAYS, Set.of());

	/** Values are hidden: lengths and counts only. */
	public static final ValuePolicy HIDDEN = new ValuePolicy(Show.NEVER, Set.of());

	private final Show show;

	private final Set<String> roles;

	private ValuePolicy(Show show, Set<String> roles) {
		this.show = show;
		this.roles = roles;
	}

	/**
	 * A policy as configured.
	 * @param show when values are shown
	 * @param roles roles that see values with {@link Show#WHEN_AUTHORIZED}; empty for any
	 * signed-in caller
	 * @return the policy
	 */
	public static ValuePolicy of(Show show, @Nullable Collection<String> roles) {
		Objects.requireNonNull(show, "'show' must not be null");
		return switch (show) {
			case ALWAYS -> SHOWN;
			case NEVER -> HIDDEN;
			case WHEN_AUTHORIZED -> new ValuePolicy(show, Set.copyOf((roles != null) ? roles : Set.of()));
		};
	}

	/**
	 * This policy for one caller: {@link #SHOWN} or {@link #HIDDEN}.
	 * @param signedIn whether the caller is signed in (has a principal)
	 * @param inRole whether the caller has a role
	 * @return the policy settled for the caller
	 */
	public ValuePolicy forCaller(boolean signedIn, Predicate<String> inRole) {
		return switch (this.show) {
			case ALWAYS -> SHOWN;
			case NEVER -> HIDDEN;
			case WHEN_AUTHORIZED ->
				(signedIn && (this.roles.isEmpty() || this.roles.stream().anyMatch(inRole))) ? SHOWN : HIDDEN;
		};
	}

	/**
	 * This policy for a caller who reached the queue without a web request (JMX, the
	 * application itself) and so is trusted as signed in with every role, as Boot's
	 * {@code Show.isShown(true)} does.
	 * @return {@link #HIDDEN} when values are never shown, else {@link #SHOWN}
	 */
	public ValuePolicy forTrustedCaller() {
		return (this.show == Show.NEVER) ? HIDDEN : SHOWN;
	}

	/** Whether values are shown: only a policy settled to {@link #SHOWN}. */
	public boolean shown() {
		return this.show == Show.ALWAYS;
	}

	/** When values are shown. */
	public Show show() {
		return this.show;
	}

	/** The roles that see values with {@link Show#WHEN_AUTHORIZED}. */
	public Set<String> roles() {
		return this.roles;
	}

	/**
	 * As written in the properties: {@code never}, {@code when-authorized} or
	 * {@code always}.
	 */
	public String describe() {
		return this.show.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/** Whether a value read through a view was hidden. */
	public static boolean isHidden(@Nullable String value) {
		return HIDDEN_VALUE.equals(value);
	}

	@Override
	public String toString() {
		return "ValuePolicy[" + describe() + (this.roles.isEmpty() ? "" : ", roles " + this.roles) + "]";
	}

	/** Characters of payload and result previews read for this policy. */
	int previewChars(int previewChars) {
		return shown() ? previewChars : 0;
	}

	@Nullable String value(@Nullable String value) {
		return (value == null || shown()) ? value : HIDDEN_VALUE;
	}

	@Nullable Text text(@Nullable Text text) {
		if (text == null || shown()) {
			return text;
		}
		return new Text(text.length(), null, text.length() > 0);
	}

	@Nullable JobProgress progress(@Nullable JobProgress progress) {
		if (progress == null || shown()) {
			return progress;
		}
		return new JobProgress(progress.done(), progress.total(), value(progress.message()), progress.at());
	}

	Attempt attempt(Attempt attempt) {
		if (shown()) {
			return attempt;
		}
		return new Attempt(attempt.run(), attempt.attempt(), attempt.workerId(), attempt.startedAt(),
				attempt.finishedAt(), attempt.outcome(), attempt.errorCode(), value(attempt.errorDetail()),
				value(attempt.errorTrace()));
	}

	Event event(Event event) {
		return shown() ? event : new Event(event.at(), event.event(), event.actor(), value(event.detail()));
	}

	Step step(Step step) {
		return shown() ? step : new Step(step.name(), text(step.result()), step.run(), step.attempt(), step.startedAt(),
				step.recordedAt());
	}

	JobDetail detail(JobDetail detail) {
		if (shown()) {
			return detail;
		}
		return new JobDetail(detail.job(), detail.leaseUntil(), value(detail.errorDetail()), value(detail.dedupKey()),
				detail.cancelRequested(), detail.traceParent(), Objects.requireNonNull(text(detail.payload())),
				text(detail.result()), detail.attempts().stream().map(this::attempt).toList(),
				detail.events().stream().map(this::event).toList(), progress(detail.progress()), detail.links(),
				detail.steps().stream().map(this::step).toList());
	}

	/** When values are shown; the values of Boot's {@code Show}. */
	public enum Show {

		/** Never. */
		NEVER,

		/** To signed-in callers (with one of the configured roles, if any). */
		WHEN_AUTHORIZED,

		/** Always. */
		ALWAYS

	}

}
