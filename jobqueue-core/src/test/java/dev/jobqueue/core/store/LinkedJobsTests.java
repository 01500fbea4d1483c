package dev.jobqueue.core.store;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.ErrorCodes;

import static org.assertj.core.api.Assertions.assertThat;

/** How a linked job starts, decided alone: no store. */
class LinkedJobsTests {

	@Test
	void aJobWaitsForItsUnfinishedDependenciesAndCountsTheSucceededOnes() {
		LinkedJobs.Start start = LinkedJobs.start(DependencyPolicy.CANCEL,
				List.of("succeeded", "pending", "running", "waiting"));

		assertThat(start.status()).isEqualTo("waiting");
		assertThat(start.waitingFor()).isEqualTo(3);
		assertThat(start.finished()).isFalse();
	}

	@Test
	void aJobWhoseDependenciesAllSucceededIsPendingAtOnce() {
		LinkedJobs.Start start = LinkedJobs.start(DependencyPolicy.CANCEL, List.of("succeeded", "succeeded"));

		assertThat(start.status()).isEqualTo("pending");
		assertThat(start.waitingFor()).isZero();
	}

	@Test
	void aDependencyThatAlreadyFailedEndsTheJobByItsPolicy() {
		LinkedJobs.Start cancelled = LinkedJobs.start(DependencyPolicy.CANCEL, List.of("pending", "failed"));
		LinkedJobs.Start failed = LinkedJobs.start(DependencyPolicy.FAIL, List.of("cancelled"));

		assertThat(cancelled.status()).isEqualTo("cancelled");
		assertThat(cancelled.errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_FAILED);
		assertThat(cancelled.finished()).isTrue();
		assertThat(failed.status()).isEqualTo("failed");
		assertThat(failed.errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_CANCELLED);
	}

	@Test
	void underPolicyRunAFailedDependencyIsCountedLikeAFinishedOne() {
		LinkedJobs.Start start = LinkedJobs.start(DependencyPolicy.RUN, List.of("failed", "cancelled", "running"));

		assertThat(start.status()).isEqualTo("waiting");
		assertThat(start.waitingFor()).isEqualTo(1);
		assertThat(start.finished()).isFalse();
	}

	@Test
	void aLongContinuationIsDescribedByItsRange() {
		assertThat(LinkedJobs.describeNext(List.of(7L))).isEqualTo("next: job(s) [7]");
		assertThat(LinkedJobs.describeNext(List.of(1L, 2L, 3L, 4L, 5L, 6L))).isEqualTo("next: 6 jobs, 1 to 6");
	}

}
