package dev.jobqueue.core.retention;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The retention policy alone: no store. What the cleaner does with it is the behaviour
 * suite's {@code RetentionTests}.
 */
class RetentionPolicyTests {

	/**
	 * succeeded 30d, failed 90d, cancelled 30d; type report 7d whatever its status; type
	 * audit kept forever.
	 */
	private static final RetentionPolicy POLICY = RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(90),
			Duration.ofDays(30), Map.of("report", Duration.ofDays(7), "audit", Duration.ofMillis(-1)));

	@Test
	void policyTellsRetentionPerStatusAndType() {
		assertThat(POLICY.retention(JobStatus.SUCCEEDED, "thumbnail")).contains(Duration.ofDays(30));
		assertThat(POLICY.retention(JobStatus.FAILED, "report")).contains(Duration.ofDays(7));
		assertThat(POLICY.retention(JobStatus.FAILED, "audit")).isEmpty();
		assertThat(POLICY.retention(JobStatus.PENDING, "thumbnail")).isEmpty();
		assertThat(POLICY.retention(JobStatus.RUNNING, "report")).isEmpty();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetentionPolicy.of(null, null, null, Map.of(" ", Duration.ofDays(1))))
			.withMessageContaining("per-type.<type>");
		assertThatIllegalArgumentException().isThrownBy(() -> RetentionSettings.of(POLICY, 0))
			.withMessageContaining("jobqueue.retention.batch-size");
	}

	@Test
	void zeroNegativeOrMissingRetentionsKeepJobsForever() {
		RetentionPolicy off = RetentionPolicy.of(Duration.ZERO, Duration.ofDays(-1), null, Map.of());
		assertThat(off.deletesAnything()).isFalse();
		assertThat(off.retention(JobStatus.SUCCEEDED, "thumbnail")).isEmpty();
		assertThat(off.retention(JobStatus.FAILED, "thumbnail")).isEmpty();
		assertThat(off.retention(JobStatus.CANCELLED, "thumbnail")).isEmpty();
		assertThat(RetentionPolicy.keepForever().deletesAnything()).isFalse();
		assertThat(POLICY.deletesAnything()).isTrue();
	}

	@Test
	void theLongestRetentionCoversStatusesAndTypesAndIsNoneWhileSomeJobsAreKeptForever() {
		assertThat(POLICY.longest()).as("type audit is kept forever").isEmpty();
		assertThat(RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(90), Duration.ofDays(30), null).longest())
			.contains(Duration.ofDays(90));
		assertThat(RetentionPolicy
			.of(Duration.ofDays(30), Duration.ofDays(9), Duration.ofDays(3), Map.of("report", Duration.ofDays(365)))
			.longest()).contains(Duration.ofDays(365));
		assertThat(RetentionPolicy.of(Duration.ofDays(1), null, Duration.ofDays(1), null).longest()).isEmpty();
	}

}
