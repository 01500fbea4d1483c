package dev.jobqueue.test;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.test.AutoConfigureJobQueue.RunJobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

@SpringBootTest(classes = TestApplication.class)
@AutoConfigureJobQueue(runJobs = RunJobs.IN_BACKGROUND)
class BackgroundJobsTests {

	@Autowired
	JobQueue jobQueue;

	@Autowired
	JobQueueTester tester;

	@Test
	void awaitIdleWaitsForTheWorker() {
		long id = this.jobQueue.enqueue("greet", new TestApplication.Greeting("Ada"));

		this.tester.awaitIdle(Duration.ofSeconds(10));

		assertThat(this.jobQueue.find(id).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
	}

	@Test
	void aDelayedJobRunsInTheBackgroundOnceTheClockPassesItsTime() {
		long id = this.jobQueue
			.enqueue(JobRequest.of("greet", new TestApplication.Greeting("Grace")).delay(Duration.ofDays(1)));
		this.tester.awaitIdle(Duration.ofSeconds(10));
		assertThat(this.jobQueue.find(id).orElseThrow().status()).isEqualTo(JobStatus.PENDING);

		this.tester.advanceClock(Duration.ofDays(1));
		this.tester.awaitIdle(Duration.ofSeconds(10));

		assertThat(this.jobQueue.find(id).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
	}

	@Test
	void runDueJobsSaysToAwaitIdleInstead() {
		assertThatIllegalStateException().isThrownBy(this.tester::runDueJobs)
			.withMessageContaining("awaitIdle(timeout)");
	}

}
