package dev.jobqueue.views;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobStatus;
import dev.jobqueue.views.ValuePolicy.Show;

import static org.assertj.core.api.Assertions.assertThat;

class ValuePolicyTests {

	static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

	@Test
	void settledPerCallerAsBootsShowIs() {
		ValuePolicy anyone = ValuePolicy.of(Show.WHEN_AUTHORIZED, Set.of());
		ValuePolicy admins = ValuePolicy.of(Show.WHEN_AUTHORIZED, Set.of("ADMIN"));
		assertThat(anyone.forCaller(false, (role) -> true)).isSameAs(ValuePolicy.HIDDEN);
		assertThat(anyone.forCaller(true, (role) -> false)).isSameAs(ValuePolicy.SHOWN);
		assertThat(admins.forCaller(true, (role) -> false)).isSameAs(ValuePolicy.HIDDEN);
		assertThat(admins.forCaller(true, "ADMIN"::equals)).isSameAs(ValuePolicy.SHOWN);
		assertThat(ValuePolicy.of(Show.NEVER, Set.of("ADMIN")).forCaller(true, (role) -> true))
			.isSameAs(ValuePolicy.HIDDEN);
		assertThat(ValuePolicy.of(Show.ALWAYS, null).forCaller(false, (role) -> false)).isSameAs(ValuePolicy.SHOWN);
		assertThat(admins.forTrustedCaller()).isSameAs(ValuePolicy.SHOWN);
		assertThat(ValuePolicy.HIDDEN.forTrustedCaller()).isSameAs(ValuePolicy.HIDDEN);
		assertThat(admins.describe()).isEqualTo("when-authorized");
	}

	@Test
	void aPolicyStillDependingOnTheCallerHidesValues() {
		ValuePolicy unsettled = ValuePolicy.of(Show.WHEN_AUTHORIZED, Set.of());
		assertThat(unsettled.shown()).isFalse();
		assertThat(unsettled.value("card 4242")).isEqualTo(ValuePolicy.HIDDEN_VALUE);
		assertThat(unsettled.previewChars(200)).isZero();
	}

	@Test
	void hiddenDetailKeepsLengthsCountsAndStateButNoValue() {
		JobSummary job = new JobSummary(7, "charge", JobStatus.FAILED, 0, 2, 2, T, T, T, T, "w-1", T, "HANDLER:X",
				"customer-9");
		JobDetail detail = new JobDetail(job, null, "card 4242 declined", "order-1", false, null,
				new Text(30, "{\"card\":\"4242\"", true), new Text(0, "", false),
				List.of(new Attempt(1, 1, "w-1", T, T, "FAILED", "HANDLER:X", "card 4242", "trace 4242")),
				List.of(new Event(T, "FAILED", "w-1", "card 4242"), new Event(T, "ENQUEUED", "api", null)),
				new JobProgress(1, 2, "charging 4242", T), JobLinks.NONE,
				List.of(new Step("charge", new Text(12, "\"4242\"", false), 1, 1, T, T)));

		JobDetail hidden = ValuePolicy.HIDDEN.detail(detail);

		assertThat(hidden.toString()).doesNotContain("4242").doesNotContain("order-1");
		assertThat(hidden.job()).isEqualTo(job);
		assertThat(hidden.errorDetail()).isEqualTo(ValuePolicy.HIDDEN_VALUE);
		assertThat(hidden.dedupKey()).isEqualTo(ValuePolicy.HIDDEN_VALUE);
		assertThat(hidden.payload()).isEqualTo(new Text(30, null, true));
		assertThat(hidden.result()).isEqualTo(new Text(0, null, false));
		assertThat(hidden.attempts().get(0).errorCode()).isEqualTo("HANDLER:X");
		assertThat(hidden.events().get(1).detail()).isNull();
		assertThat(hidden.progress()).isEqualTo(new JobProgress(1, 2, ValuePolicy.HIDDEN_VALUE, T));
		assertThat(hidden.steps().get(0).result()).isEqualTo(new Text(12, null, true));
		assertThat(ValuePolicy.SHOWN.detail(detail)).isSameAs(detail);
	}

}
