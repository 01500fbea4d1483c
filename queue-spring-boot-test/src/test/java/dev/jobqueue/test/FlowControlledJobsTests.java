package dev.jobqueue.test;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.RateLimit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A test drives handlers with flow control through {@link JobQueueTester#runDueJobs()}: a
 * rate limit holds on the test clock, so the test moves the clock instead of sleeping,
 * and an ordered key's jobs run one after another in enqueue order, each handler reading
 * its job's key.
 */
@SpringBootTest(classes = FlowControlledJobsTests.FlowApplication.class)
@AutoConfigureJobQueue
class FlowControlledJobsTests {

	@Autowired
	JobQueue jobQueue;

	@Autowired
	JobQueueTester tester;

	@Test
	void aRateLimitedHandlerRunsAsManyJobsAsItsWindowAllowsUntilTheClockMoves() {
		for (int i = 1; i <= 5; i++) {
			this.jobQueue.enqueue("sms", "text-" + i);
		}

		assertThat(payloads(this.tester.runDueJobs())).containsExactly("text-1", "text-2");
		assertThat(this.tester.runDueJobs()).isEmpty();
		this.tester.advanceClock(Duration.ofSeconds(59));
		assertThat(this.tester.runDueJobs()).isEmpty();
		this.tester.advanceClock(Duration.ofSeconds(1));
		assertThat(payloads(this.tester.runDueJobs())).containsExactly("text-3", "text-4");
	}

	@Test
	void anOrderedKeysJobsRunOneAfterAnotherInEnqueueOrderWhateverTheirPriority() {
		this.jobQueue.enqueue(JobRequest.of("ledger", "debit").key("account-1"));
		this.jobQueue.enqueue(JobRequest.of("ledger", "credit").key("account-1").priority(9));
		this.jobQueue.enqueue(JobRequest.of("ledger", "close").key("account-1"));

		assertThat(payloads(this.tester.runDueJobs())).containsExactly("debit", "credit", "close");
	}

	@Test
	void aHandlerReadsTheKeyItsJobWasEnqueuedWith() {
		long keyed = this.jobQueue.enqueue(JobRequest.of("ledger", "debit").key("account-2"));
		long plain = this.jobQueue.enqueue("ledger", "credit");

		this.tester.runDueJobs();
		assertThat(this.jobQueue.result(keyed, String.class)).contains("account-2");
		assertThat(this.jobQueue.result(plain, String.class)).contains("no key");
	}

	private static List<String> payloads(List<Job> jobs) {
		return jobs.stream().map((job) -> job.payload().replace("\"", "")).toList();
	}

	/**
	 * Handlers with flow control, declared as their definitions (what the annotation's
	 * attributes become).
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class FlowApplication {

		@Bean
		InitializingBean flowControlledHandlers(HandlerRegistry handlers) {
			return () -> {
				handlers.register(new HandlerDefinition("sms", (payload, context) -> null, 0, null, 0, true, "sms", 0,
						new FlowControl(RateLimit.parse("2/1m"), null, 0, false, true)));
				handlers.register(new HandlerDefinition("ledger", (payload, context) -> context.key().orElse("no key"),
						0, null, 0, true, "ledger", 0, new FlowControl(null, null, 0, true, true)));
			};
		}

	}

}
