package dev.jobqueue.sample;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.Authentication;

import dev.jobqueue.Job;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's job API follows the endpoint's values policy: {@code never} hides values
 * even from the operator, {@code when-authorized} shows them to a caller with one of the
 * roles, {@code always} to everyone.
 */
class JobValuesTests {

	private final Job job = new Job(7, "tag", JobStatus.FAILED, 0, "{\"name\":\"secret-cat\"}", "\"tags\"", "key-7", 1,
			5, Instant.EPOCH, Instant.EPOCH, null, null, null, null, null, "E:X", "stack trace", false);

	private final Authentication operator = authenticated("ROLE_OPERATOR");

	private final Authentication support = authenticated("ROLE_SUPPORT");

	@Test
	void neverHidesValuesFromEveryone() {
		Job shown = new JobValues("never", Set.of("OPERATOR")).view(this.job, this.operator);
		assertThat(List.of(shown.payload(), shown.result(), shown.dedupKey(), shown.errorDetail()))
			.containsOnly(JobValues.HIDDEN);
		assertThat(shown.errorCode()).isEqualTo("E:X");
	}

	@Test
	void whenAuthorizedShowsValuesToTheRolesOnly() {
		JobValues values = new JobValues("when-authorized", Set.of("OPERATOR"));
		assertThat(values.view(this.job, this.operator).payload()).contains("secret-cat");
		assertThat(values.view(this.job, this.support).payload()).isEqualTo(JobValues.HIDDEN);
		assertThat(values.view(this.job, null).payload()).isEqualTo(JobValues.HIDDEN);
		assertThat(new JobValues("WHEN_AUTHORIZED", Set.of()).view(this.job, this.support).payload())
			.contains("secret-cat");
	}

	@Test
	void alwaysShowsValues() {
		assertThat(new JobValues("always", Set.of()).view(this.job, null).payload()).contains("secret-cat");
	}

	private static Authentication authenticated(String authority) {
		TestingAuthenticationToken token = new TestingAuthenticationToken("someone", "", authority);
		token.setAuthenticated(true);
		return token;
	}

}
