package dev.jobqueue.core.worker;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.NewJobs;
import dev.jobqueue.core.store.NewJob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ContinuationsTests {

	private static final Instant NOW = Instant.parse("2026-05-01T10:00:00Z");

	private final NewJobs newJobs = newJobs();

	@Test
	void aNextStepIsTheFirstStepOfTheChainAfterTheCurrentJobAndKeepsItsTrace() {
		List<NewJob> next = Continuations.next(this.newJobs, JobRequest.of("t", "x"), NOW, "trace-1");

		assertThat(next).singleElement().satisfies((job) -> {
			assertThat(job.type()).isEqualTo("t");
			assertThat(job.chainIndex()).isEqualTo(1);
			assertThat(job.traceContext()).isEqualTo("trace-1");
		});
	}

	@Test
	void aMissingNextStepSaysWhatToPass() {
		assertThatIllegalArgumentException().isThrownBy(() -> Continuations.next(this.newJobs, null, NOW, null))
			.withMessageContaining("JobRequest.of(type, payload)");
	}

	@Test
	void aContinuationCannotWaitForOtherJobs() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Continuations.next(this.newJobs, JobRequest.of("t", "x").after(5), NOW, null))
			.withMessageContaining("cannot wait for other jobs");
	}

	@Test
	void aContinuationCannotHaveADedupKey() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Continuations.next(this.newJobs, JobRequest.of("t", "x").dedupKey("k"), NOW, null))
			.withMessageContaining("cannot have a dedup key");
	}

	@Test
	void whatEnqueueRejectsFailsTheRunAsABadArgument() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Continuations.next(this.newJobs, JobRequest.of("t", "x").maxAttempts(0), NOW, null))
			.withMessageContaining("maxAttempts 0");
	}

	@Test
	void aFanOutHasItsChildrenFirstAndTheJoinLast() {
		List<NewJob> jobs = Continuations.fanOut(this.newJobs,
				List.of(JobRequest.of("t", "a"), JobRequest.of("t", "b")), JobRequest.of("t", "join"), NOW, null);

		assertThat(jobs).extracting(NewJob::chainIndex).containsExactly(1, 1, 2);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Continuations.fanOut(this.newJobs, null, JobRequest.of("t", "join"), NOW, null))
			.withMessageContaining("must not be null");
	}

	private static NewJobs newJobs() {
		HandlerRegistry handlers = new HandlerRegistry();
		handlers.register(HandlerDefinition.of("t", (payload, context) -> null));
		return new NewJobs(new OutcomeMapperTests.QuotingCodec(), handlers,
				new EnqueueLimits(EnqueueLimits.DEFAULT_MAX_ATTEMPTS, 1024));
	}

}
