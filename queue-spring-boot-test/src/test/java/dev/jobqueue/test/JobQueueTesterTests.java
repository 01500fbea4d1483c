package dev.jobqueue.test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.JobStep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.tuple;

@SpringBootTest(classes = TestApplication.class)
@AutoConfigureJobQueue
class JobQueueTesterTests {

	@Autowired
	JobQueue jobQueue;

	@Autowired
	JobQueueTester tester;

	@Autowired
	TestApplication.Handlers handlers;

	@Value("${jobqueue.datasource.url}")
	String queueUrl;

	@Test
	void runsDueJobsOnTheTestThreadAndShowsTheirOutcome() {
		long id = this.jobQueue.enqueue("greet", new TestApplication.Greeting("Ada"));

		List<Job> ran = this.tester.runDueJobs();

		assertThat(ran).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo(id);
			assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(job.result()).isEqualTo("\"Hello, Ada\"");
			assertThat(this.jobQueue.result(id, String.class)).contains("Hello, Ada");
		});
		assertThat(this.handlers.threads).last().isSameAs(Thread.currentThread());
		assertThat(this.tester.runDueJobs()).isEmpty();
	}

	@Test
	void jobsThatHandlersEnqueueRunInTheSameCall() {
		this.jobQueue.enqueue("chain", new TestApplication.Greeting("Grace"));

		assertThat(this.tester.runDueJobs()).extracting(Job::type).containsExactly("chain", "greet");
	}

	@Test
	void stepsRunOnTheTestClockAndATestSeesWhichRanAndWhichWereReplayed() {
		long id = this.jobQueue.enqueue("order", new TestApplication.Greeting("Edsger"));
		Instant first = this.tester.now();
		this.tester.runDueJobs();
		this.tester.advanceClock(Duration.ofMinutes(5));
		Instant second = this.tester.now();

		assertThat(this.tester.runDueJobs()).singleElement()
			.satisfies((job) -> assertThat(job.result()).isEqualTo("\"booked receipt for Edsger\""));

		assertThat(this.tester.stepsRun(id)).containsExactly("charge", "send-receipt", "ledger");
		assertThat(this.tester.stepsReplayed(id)).containsExactly("charge", "send-receipt");
		assertThat(this.tester.recordedSteps(id)).extracting(JobStep::name, JobStep::attempt, JobStep::recordedAt)
			.containsExactly(tuple("charge", 1, first), tuple("send-receipt", 1, first), tuple("ledger", 2, second));
	}

	@Test
	void aDelayedJobRunsOnceTheClockPassesItsTime() {
		long id = this.jobQueue
			.enqueue(JobRequest.of("greet", new TestApplication.Greeting("Linus")).delay(Duration.ofMinutes(10)));
		assertThat(this.tester.runDueJobs()).isEmpty();

		this.tester.advanceClock(Duration.ofMinutes(10));

		assertThat(this.tester.runDueJobs()).extracting(Job::id).containsExactly(id);
	}

	@Test
	void aFailedAttemptRunsAgainOnceTheClockPassesItsBackoff() {
		long id = this.jobQueue.enqueue("flaky", new TestApplication.Greeting("Barbara"));

		assertThat(this.tester.runDueJobs()).singleElement().satisfies((job) -> {
			assertThat(job.status()).isEqualTo(JobStatus.PENDING);
			assertThat(job.errorCode()).isEqualTo("INTERNAL:IllegalStateException");
		});
		assertThat(this.tester.runDueJobs()).isEmpty();

		this.tester.advanceClock(Duration.ofHours(1));

		Job second = this.tester.runDueJobs().get(0);
		assertThat(second.id()).isEqualTo(id);
		assertThat(second.status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(second.attempts()).isEqualTo(2);
	}

	@Test
	void cronTicksComeDueWhenTheClockPassesThem() {
		this.tester.runDueJobs();
		int before = this.handlers.hourlyRuns.size();
		Instant nextHour = this.tester.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));

		this.tester.advanceClockTo(nextHour);

		assertThat(this.tester.runDueJobs()).extracting(Job::type).containsExactly("hourly");
		assertThat(this.handlers.hourlyRuns).hasSize(before + 1);
	}

	@Test
	void theQueueReadsTheTestClockNotTheApplicationsClockBean() {
		assertThat(this.tester.now()).isAfter(Instant.parse("2020-01-01T00:00:00Z"));
		long id = this.jobQueue.enqueue("greet", new TestApplication.Greeting("Edsger"));
		this.tester.runDueJobs();
		assertThat(this.jobQueue.find(id).orElseThrow().createdAt()).isEqualTo(this.tester.now());
	}

	@Test
	void theClockDoesNotMoveBackwards() {
		Instant now = this.tester.now();
		assertThatIllegalArgumentException().isThrownBy(() -> this.tester.advanceClock(Duration.ofSeconds(-1)))
			.withMessageContaining("only moves forward")
			.withMessageContaining("positive duration");
		assertThatIllegalArgumentException().isThrownBy(() -> this.tester.advanceClockTo(now.minusSeconds(1)))
			.withMessageContaining("only moves forward");
		assertThat(this.tester.now()).isEqualTo(now);
	}

	@Test
	void awaitIdleSaysToRunJobsWhenNothingRunsThemInTheBackground() {
		assertThatIllegalStateException().isThrownBy(() -> this.tester.awaitIdle(Duration.ofSeconds(1)))
			.withMessageContaining("call runDueJobs()");
	}

	@Test
	void theQueueUsesAThrowawayFile() {
		assertThat(this.queueUrl).startsWith("jdbc:sqlite:").contains("jobqueue-test-");
	}

}
